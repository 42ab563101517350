package cli

import (
	"flag"
	"os"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// StoreFlag registers --store (CTX_STORE) on fs.
func StoreFlag(fs *flag.FlagSet, p *string) {
	fs.StringVar(p, "store", "", "use the store in `DIR`, a .ctx directory (default: the nearest .ctx in this directory or a parent)")
}

// OpenStore opens the store named by --store, else the nearest .ctx in the
// current directory or a parent, like git finds .git.
func OpenStore(flagValue string) (*store.Store, error) {
	root := flagValue
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, Wrap(ExitTrouble, err)
		}
		var ok bool
		if root, ok = store.Find(wd); !ok {
			return nil, Errorf(ExitTrouble, "no .ctx store found (run 'ctx init')")
		}
		// A store found by walking up may be another user's, put above a
		// shared directory: runs would go into it, and replay would run
		// the tools of its config.json. git refuses such a repository
		// (safe.directory, CVE-2022-24765); so does ctx. A store named
		// with --store or CTX_STORE is the user's choice.
		if err := store.CheckOwner(root); err != nil {
			return nil, Errorf(ExitTrouble, "%w; ctx uses a store it finds by walking up only when you own it", err).
				WithHint("or name it with --store (its config.json tools still need it allowed)")
		}
	}
	st, err := store.Open(root)
	if err != nil {
		return nil, Wrap(ExitTrouble, err)
	}
	return st, nil
}

// FindStore is OpenStore for verbs that can work without a store (diff of
// two log files): it returns nil, nil when no store is found and none was
// named.
func FindStore(flagValue string) (*store.Store, error) {
	if flagValue == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, nil
		}
		if _, ok := store.Find(wd); !ok {
			return nil, nil
		}
	}
	return OpenStore(flagValue)
}

// OpenPack opens the store named by --store (OpenStore) and loads the pack
// called name from it, each object verified; a name that does not resolve
// or a pack that does not load is exit 2 with NameError's hints.
func OpenPack(storeFlag, name string) (*store.Store, *pack.Manifest, error) {
	st, err := OpenStore(storeFlag)
	if err != nil {
		return nil, nil, err
	}
	m, err := pack.Resolve(st, name)
	if err != nil {
		return nil, nil, NameError(err)
	}
	return st, m, nil
}
