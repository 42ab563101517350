package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// sessions: ctx capture of many Claude Code sessions from a generated
// ~/.claude (into a fresh store, against cp -r of the same folder), then
// again with nothing new (held to half a second: the stat cache and the
// capture cache answer without reading a session or a pack); and ctx
// restore of one large captured session into a fresh home, against cp of
// the session file (and cp + sync -f: restore makes the file durable
// before it renames it into place).
func (e benchEnv) sessions() []workload {
	dir := filepath.Join(e.work, "sessions")
	home := filepath.Join(dir, "home")
	projects := filepath.Join(home, ".claude", "projects")
	n := e.size.captureSessions
	env := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=", "CODEX_HOME=", "GEMINI_CLI_HOME="}
	fresh, again := filepath.Join(dir, "fresh"), filepath.Join(dir, "again")
	capture := func(st string) []string {
		return e.ctx("capture", "--all", "--store", filepath.Join(st, ".ctx"))
	}
	prepare := func() error {
		for _, d := range []string{fresh, again} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
		}
		for i := 0; i < n; i++ {
			p := filepath.Join(projects, fmt.Sprintf("-work-project%02d", i%10), fmt.Sprintf("%08d-0000-4000-8000-000000000000.jsonl", i))
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				return err
			}
			if err := writeSession(p, e.size.captureSessionBytes); err != nil {
				return err
			}
		}
		if err := e.freshStore(again)(); err != nil {
			return err
		}
		if err := runEnv(dir, env, capture(again)...); err != nil {
			return err
		}
		// Once the files are older than the stat cache's racy window, a
		// capture records them; the timed ones then find them there.
		time.Sleep(3500 * time.Millisecond)
		return runEnv(dir, env, capture(again)...)
	}
	removeCopy := func() error { return os.RemoveAll(filepath.Join(dir, "copy")) }
	var total int64
	first := workload{
		name:    fmt.Sprintf("capture %s Claude Code sessions", count(n)),
		prepare: prepare,
		cmds: []command{
			{label: "ctx capture --all (fresh store)", argv: capture(fresh), dir: dir, env: env, setup: e.freshStore(fresh)},
			{label: "ctx capture --all (nothing new)", argv: capture(again), dir: dir, env: env, alone: true},
			{label: "cp -r ~/.claude/projects copy", argv: []string{"cp", "-r", projects, "copy"}, dir: dir, peer: "cp -r", setup: removeCopy},
		},
		targets: []target{{cmd: 1, maxWall: 500 * time.Millisecond}},
	}
	first.summary = func([]sample) string {
		if total == 0 {
			_ = filepath.Walk(projects, func(_ string, fi os.FileInfo, err error) error {
				if err == nil && fi.Mode().IsRegular() {
					total += fi.Size()
				}
				return nil
			})
		}
		return fmt.Sprintf("%s sessions of about %s each in 10 project folders, %s in all; the second capture stats each file and reads each tag, and reads no session and no pack",
			count(n), kb(e.size.captureSessionBytes), mb(total))
	}

	rdir := filepath.Join(dir, "restore")
	rhome := filepath.Join(rdir, "home")
	cwd := filepath.Join(rdir, "project_dir.v2")
	session := filepath.Join(rdir, "session.jsonl")
	tag := "claude-code.bench"
	renv := []string{"HOME=" + filepath.Join(rdir, "target"), "CLAUDE_CONFIG_DIR=", "CODEX_HOME=", "GEMINI_CLI_HOME="}
	clear := func() error { return os.RemoveAll(filepath.Join(rdir, "target")) }
	restore := workload{
		name: fmt.Sprintf("restore a %d MB Claude Code session", e.size.restoreMB),
		prepare: func() error {
			p := filepath.Join(rhome, ".claude", "projects", "-tmp-tmpbench01", "bench.jsonl")
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				return err
			}
			if err := os.MkdirAll(cwd, 0o755); err != nil {
				return err
			}
			if err := writeSession(p, e.size.restoreMB*1e6); err != nil {
				return err
			}
			if err := os.Link(p, session); err != nil {
				return err
			}
			if err := e.freshStore(rdir)(); err != nil {
				return err
			}
			return runEnv(rdir, []string{"HOME=" + rhome}, e.ctx("capture", "--all")...)
		},
		cmds: []command{
			{label: "ctx restore --cwd DIR (fresh home)", argv: e.ctx("restore", "--cwd", cwd, tag), dir: rdir, env: renv, setup: clear},
			{label: "cp session.jsonl", argv: []string{"sh", "-c", "mkdir -p target && cp session.jsonl target/"}, dir: rdir, peer: "cp", setup: clear},
			{label: "cp session.jsonl && sync -f", argv: []string{"sh", "-c", "mkdir -p target && cp session.jsonl target/ && sync -f target/session.jsonl"}, dir: rdir, peer: "cp + sync", setup: clear},
		},
		note:    "restore reads the pack's manifest (every step of it, as the hash is checked: about half its time), then the session from the store, rewrites each line's cwd, syncs the file and renames it into place; cp leaves the copy in the page cache",
		targets: []target{{cmd: 0, minRate: 40, rateOf: func() float64 { return float64(e.size.restoreMB) }, unit: "MB/s"}},
		rate:    rate{per: float64(e.size.restoreMB), unit: "MB/s"},
	}
	return []workload{first, restore}
}

// runEnv runs argv in dir with env added, quietly.
func runEnv(dir string, env []string, argv ...string) error {
	return runQuiet(dir, append([]string{"env"}, append(env, argv...)...)...)
}

// kb formats a byte count in KB.
func kb(n int) string { return strings.TrimSuffix(fmt.Sprintf("%d KB", n/1000), " ") }
