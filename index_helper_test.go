package ctx_test

import (
	"fmt"
	"os"

	"github.com/contextsubstrate/ctx/lib/store"
)

// runIndexRec is the scripts' indexrec command: it writes what a damaged
// or interrupted writer could leave in a store's index, through the
// store's own writes, since a record of the index log carries a checksum
// a script cannot compute.
//
//	indexrec STORE HEX FILE   append a record giving pack HEX the entry in FILE
//	indexrec -d STORE HEX     append a record taking pack HEX out of the index
//	indexrec -p STORE HEX     print pack HEX's entry as the index has it
func runIndexRec(args []string) int {
	op := ""
	if len(args) > 0 && (args[0] == "-d" || args[0] == "-p") {
		op, args = args[0], args[1:]
	}
	if len(args) != 2+btoi(op == "") {
		fmt.Fprintln(os.Stderr, "usage: indexrec [-d|-p] STORE HEX [FILE]")
		return 2
	}
	st, err := store.Open(args[0])
	if err == nil {
		var h store.Hash
		if h, err = store.ParseHex(args[1]); err == nil {
			err = indexRec(st, op, h, args[2:])
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "indexrec:", err)
		return 1
	}
	return 0
}

func indexRec(st *store.Store, op string, h store.Hash, file []string) error {
	switch op {
	case "-d":
		return st.WriteIndexes([]store.IndexRecord{{Hash: h}})
	case "-p":
		b, err := st.ReadIndex(h)
		if err == nil {
			_, err = fmt.Printf("%s\n", b)
		}
		return err
	}
	b, err := os.ReadFile(file[0])
	if err != nil {
		return err
	}
	return st.WriteIndex(h, b)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
