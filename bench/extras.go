package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// The workloads below are outside the table: they run with -extra
// (or when -only names them) and keep the other verbs' figures in the one
// harness.

// verify: ctx verify against sha256sum -c of a checksum file, over a tree
// of small artifacts and over one large artifact. ctx verify reads about
// twice the bytes (the artifact, and the pack's copy of it, whose closure
// it rehashes) plus one sidecar per artifact.
func (e benchEnv) verify() []workload {
	dir := filepath.Join(e.work, "verify")
	prepare := once(func() error {
		var outs []map[string]string
		var sums strings.Builder
		for i := 0; i < e.size.verifyFiles; i++ {
			p := fmt.Sprintf("dist/%02d/%05d.txt", i%50, i)
			data := []byte(strings.Repeat(fmt.Sprintf("line 0 of artifact %d\n", i), 200))
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, p), data, 0o644); err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), p)
			outs = append(outs, map[string]string{"name": p, "path": p})
		}
		if err := os.WriteFile(filepath.Join(dir, "dist.sha256"), []byte(sums.String()), 0o644); err != nil {
			return err
		}
		if err := writeRandomFile(filepath.Join(dir, "big.bin"), int64(e.size.verifyBig)); err != nil {
			return err
		}
		outs = append(outs, map[string]string{"name": "big.bin", "path": "big.bin"})
		log, err := json.Marshal(map[string]any{
			"created": "2026-01-01T00:00:00Z", "model": map[string]string{"identifier": "bench"},
			"prompts": []any{}, "steps": []any{map[string]string{"tool": "write_file", "output": "ok"}},
			"outputs": outs,
		})
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "run.json"), log, 0o644); err != nil {
			return err
		}
		if err := runQuiet(dir, e.ctx("init")...); err != nil {
			return err
		}
		if err := runQuiet(dir, e.ctx("pack", "run.json")...); err != nil {
			return err
		}
		sum, err := runOutput(dir, "sha256sum", "big.bin")
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, "big.sha256"), []byte(sum+"\n"), 0o644)
	})
	return []workload{
		{
			name:    fmt.Sprintf("ctx verify of a tree of %s artifacts", count(e.size.verifyFiles)),
			extra:   true,
			prepare: prepare,
			cmds: []command{
				{label: "ctx verify -r dist", argv: e.ctx("verify", "-r", "dist"), dir: dir},
				{label: "sha256sum --quiet -c dist.sha256", argv: []string{"sha256sum", "--quiet", "-c", "dist.sha256"}, dir: dir, peer: "sha256sum -c"},
			},
		},
		{
			name:    fmt.Sprintf("ctx verify of one %s artifact", mb(int64(e.size.verifyBig))),
			extra:   true,
			prepare: prepare,
			cmds: []command{
				{label: "ctx verify big.bin", argv: e.ctx("verify", "big.bin"), dir: dir},
				{label: "sha256sum --quiet -c big.sha256", argv: []string{"sha256sum", "--quiet", "-c", "big.sha256"}, dir: dir, peer: "sha256sum -c"},
			},
			note: "ctx verify hashes the artifact and rehashes the pack's closure, its copy of the artifact included",
		},
	}
}

// storeTools: ctx export, import and fsck against tar (moving a store's
// files) and find + sha256sum (checking them), on one store of many small
// packs and one large input.
func (e benchEnv) storeTools() []workload {
	dir := filepath.Join(e.work, "storetools")
	src := filepath.Join(dir, "src", ".ctx")
	dst := filepath.Join(dir, "dst")
	prepare := once(func() error {
		logs := filepath.Join(dir, "src", "logs")
		if err := os.MkdirAll(logs, 0o755); err != nil {
			return err
		}
		if err := runQuiet(dir, e.ctx("init", "src")...); err != nil {
			return err
		}
		r := rand.New(rand.NewPCG(5, 6))
		own := make([]byte, 48<<10)
		for i := 1; i <= e.size.storePacks; i++ {
			for k := range own {
				own[k] = byte(r.Uint32())
			}
			log := fmt.Sprintf(`{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"prompts":[{"role":"user","content":"task %d"}],`+
				`"inputs":[{"name":"shared.txt","content":"shared\n"},{"name":"own.bin","content_base64":"%s"}],`+
				`"steps":[{"tool":"read_file","parameters":{"path":"own.bin"},"output":"read %d"},{"tool":"grep","parameters":{"q":"x"},"output":"hits %d"}]}`,
				i, base64.StdEncoding.EncodeToString(own), i, i)
			if err := os.WriteFile(filepath.Join(logs, "run.json"), []byte(log), 0o644); err != nil {
				return err
			}
			if err := runQuiet(dir, e.ctx("pack", "--store", src, "--no-sidecars", filepath.Join(logs, "run.json"))...); err != nil {
				return err
			}
		}
		if err := writeRandomFile(filepath.Join(logs, "big.bin"), int64(e.size.storeBig)); err != nil {
			return err
		}
		big := `{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"prompts":[],"inputs":[{"name":"big.bin","path":"big.bin"}],"steps":[]}`
		if err := os.WriteFile(filepath.Join(logs, "big.json"), []byte(big), 0o644); err != nil {
			return err
		}
		if err := runQuiet(dir, e.ctx("pack", "--store", src, "--no-sidecars", filepath.Join(logs, "big.json"))...); err != nil {
			return err
		}
		if err := runQuiet(dir, e.ctx("export", "--store", src, "--all", "-o", "ctx.tar")...); err != nil {
			return err
		}
		return runQuiet(dir, "tar", "-cf", "tar.tar", "-C", src, "objects", "packs")
	})
	fresh := func() error {
		removeAll(dst)
		return runQuiet(dir, e.ctx("init", dst)...)
	}
	name := fmt.Sprintf("%s packs, one of %s", count(e.size.storePacks+1), mb(int64(e.size.storeBig)))
	return []workload{
		{
			name: "ctx export --all (" + name + ")", extra: true, prepare: prepare,
			cmds: []command{
				{label: "ctx export --all -o ctx.tar", argv: e.ctx("export", "--store", src, "--all", "-o", "ctx.tar"), dir: dir},
				{label: "tar -cf tar.tar objects packs", argv: []string{"tar", "-cf", "tar.tar", "-C", src, "objects", "packs"}, dir: dir, peer: "tar -c"},
			},
		},
		{
			name: "ctx import (" + name + ")", extra: true, prepare: prepare,
			cmds: []command{
				{label: "ctx import ctx.tar (fresh store)", argv: e.ctx("import", "--store", filepath.Join(dst, ".ctx"), "ctx.tar"), dir: dir, setup: fresh},
				{label: "tar -xf tar.tar", argv: []string{"tar", "-xf", "tar.tar", "-C", filepath.Join(dst, ".ctx")}, dir: dir, setup: fresh, peer: "tar -x"},
				{label: "tar -xf tar.tar && sync -f", argv: []string{"sh", "-c", `tar -xf tar.tar -C "$1" && sync -f "$1"`, "sh", filepath.Join(dst, ".ctx")}, dir: dir, setup: fresh, peer: "tar -x + sync"},
			},
			note: "ctx import makes what it stores durable; tar -x does not, so it is also timed followed by sync -f",
		},
		{
			name: "ctx fsck (" + name + ")", extra: true, prepare: prepare,
			cmds: []command{
				{label: "ctx fsck", argv: e.ctx("fsck", "--store", src), dir: dir},
				{label: "find objects -type f -exec sha256sum", argv: []string{"sh", "-c", `cd "$1/objects" && find . -type f -exec sha256sum {} + >/dev/null`, "sh", src}, dir: dir, peer: "find + sha256sum"},
			},
		},
	}
}

// listing: ctx help lists every ctx-* program it finds; against bash
// listing the same names, with 2,000 of them on PATH.
func (e benchEnv) listing() workload {
	crowd := filepath.Join(e.work, "crowd")
	const n = 2000
	path := "PATH=" + crowd + string(os.PathListSeparator) + os.Getenv("PATH")
	return workload{
		name:  fmt.Sprintf("ctx help with %s ctx-* programs on PATH", count(n)),
		extra: true,
		prepare: func() error {
			if err := os.MkdirAll(crowd, 0o755); err != nil {
				return err
			}
			for i := 1; i <= n; i++ {
				if err := os.WriteFile(filepath.Join(crowd, fmt.Sprintf("ctx-plugin%d", i)), []byte("#!/bin/sh\n"), 0o755); err != nil {
					return err
				}
			}
			return nil
		},
		cmds: []command{
			{label: "ctx help", argv: []string{filepath.Join(e.bin, "ctx"), "help"}, env: []string{path}, reps: e.size.dispatchReps},
			{label: "bash -c 'compgen -c ctx-'", argv: []string{"bash", "-c", "compgen -c ctx-"}, env: []string{path}, reps: e.size.dispatchReps, peer: "compgen"},
		},
		note: fmt.Sprintf("each sample is the mean of %d calls", e.size.dispatchReps),
	}
}
