package ctxtest

import (
	"os"

	"github.com/contextsubstrate/ctx/cmd/ctx-attest/attestcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-capture/capturecmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-cat/catcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-checkout/checkoutcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-completion/completioncmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-convert/convertcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-diff/diffcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-export/exportcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-fork/forkcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-fsck/fsckcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-gc/gccmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-import/importcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-init/initcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-key/keycmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-log/logcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-pack/packcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-pull/pullcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-push/pushcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-record/recordcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-redact/redactcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-replay/replaycmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-restore/restorecmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-rm/rmcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-serve/servecmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-show/showcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-suite/suitecmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-tag/tagcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-verify/verifycmd"
	"github.com/contextsubstrate/ctx/cmd/ctx/ctxcmd"
)

// Programs are ctx's programs by name, each its verb's Main, for
// testscript.Main: it puts each on PATH as this test binary under that
// name, so a test runs the real programs (exec.LookPath("ctx-pack")) and
// `ctx VERB` goes through the real dispatcher and exec.
func Programs() map[string]func() {
	return map[string]func(){
		"ctx":            func() { os.Exit(ctxcmd.Main()) },
		"ctx-attest":     func() { os.Exit(attestcmd.Main()) },
		"ctx-capture":    func() { os.Exit(capturecmd.Main()) },
		"ctx-cat":        func() { os.Exit(catcmd.Main()) },
		"ctx-checkout":   func() { os.Exit(checkoutcmd.Main()) },
		"ctx-completion": func() { os.Exit(completioncmd.Main()) },
		"ctx-convert":    func() { os.Exit(convertcmd.Main()) },
		"ctx-diff":       func() { os.Exit(diffcmd.Main()) },
		"ctx-export":     func() { os.Exit(exportcmd.Main()) },
		"ctx-fork":       func() { os.Exit(forkcmd.Main()) },
		"ctx-fsck":       func() { os.Exit(fsckcmd.Main()) },
		"ctx-gc":         func() { os.Exit(gccmd.Main()) },
		"ctx-import":     func() { os.Exit(importcmd.Main()) },
		"ctx-init":       func() { os.Exit(initcmd.Main()) },
		"ctx-key":        func() { os.Exit(keycmd.Main()) },
		"ctx-log":        func() { os.Exit(logcmd.Main()) },
		"ctx-pack":       func() { os.Exit(packcmd.Main()) },
		"ctx-pull":       func() { os.Exit(pullcmd.Main()) },
		"ctx-push":       func() { os.Exit(pushcmd.Main()) },
		"ctx-record":     func() { os.Exit(recordcmd.Main()) },
		"ctx-redact":     func() { os.Exit(redactcmd.Main()) },
		"ctx-replay":     func() { os.Exit(replaycmd.Main()) },
		"ctx-restore":    func() { os.Exit(restorecmd.Main()) },
		"ctx-rm":         func() { os.Exit(rmcmd.Main()) },
		"ctx-serve":      func() { os.Exit(servecmd.Main()) },
		"ctx-show":       func() { os.Exit(showcmd.Main()) },
		"ctx-suite":      func() { os.Exit(suitecmd.Main()) },
		"ctx-tag":        func() { os.Exit(tagcmd.Main()) },
		"ctx-verify":     func() { os.Exit(verifycmd.Main()) },
	}
}
