package store_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/contextsubstrate/ctx/lib/fsck"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// packStream does what ctx pack - does with a stream of logs, and returns
// the packs it handed on (printed, for ctx pack) in order.
func packStream(st *store.Store, stream string) ([]store.Hash, error) {
	var got []store.Hash
	err := pack.SaveLogs(st, pack.NewLogs(strings.NewReader(stream)), pack.SaveOptions{
		Options: pack.Options{Store: st}, Source: "stream",
	}, func(_ *pack.Result, p pack.Published) error {
		got = append(got, p.Hash)
		return nil
	})
	return got, err
}

// TestStreamFaultAtEveryWrite fails each write of ctx pack - of a stream
// of four logs in turn (the last three share one commit, a packfile):
// with a full disk from that write on, and with one I/O error. The error
// gives the cause; every pack handed on before it is indexed and intact;
// fsck finds nothing else but packs of the failed commit whole and
// unindexed; packing the stream again gives the same hashes.
func TestStreamFaultAtEveryWrite(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 4; i++ {
		fmt.Fprintf(&b, `{"event":"run","created":"2026-03-01T00:00:00Z","model":{"identifier":"m"}}`+"\n")
		fmt.Fprintf(&b, `{"event":"prompt","content":"task %d"}`+"\n", i)
		fmt.Fprintf(&b, `{"event":"step","tool":"read_file","parameters":{"path":"a"},"output":"out %d"}`+"\n", i)
		fmt.Fprintf(&b, `{"event":"step","tool":"bash","parameters":{},"output":"shared"}`+"\n")
	}
	stream := b.String()
	clean := &counter{}
	st := newStore(t)
	store.SetFaults(st, clean.hook)
	want, err := packStream(st, stream)
	if err != nil || len(want) != 4 {
		t.Fatalf("%v, %v", want, err)
	}
	t.Logf("the stream makes %d writes: %v", clean.n, clean.ops)
	eachWriteFault(t, clean.n, func(f writeFault, st *store.Store, c *counter) {
		handed, err := packStream(st, stream)
		if c.n <= f.k {
			return
		}
		if err == nil {
			t.Errorf("%s: the stream was packed", f.what)
			return
		}
		if !errors.Is(err, f.errno) {
			t.Errorf("%s: the error does not give the cause: %v", f.what, err)
		}
		store.SetFaults(st, nil)
		for _, h := range handed {
			if !pack.HasIndexEntry(st, h) {
				t.Errorf("%s: %s was handed on but is not indexed", f.what, h)
			}
		}
		rep, ferr := fsck.Check(st, fsck.Options{TmpAge: 0, Now: time.Now().Add(time.Hour)})
		if ferr != nil {
			t.Fatal(ferr)
		}
		for _, p := range rep.Problems {
			if p.Kind == fsck.Unindexed && strings.HasPrefix(p.Object, "sha256:") {
				continue
			}
			if p.Kind == fsck.Tmp {
				continue // the next writer alone sweeps it; checked below
			}
			t.Errorf("%s: fsck: %s %s: %s", f.what, p.Kind, p.Object, p.Detail)
		}
		again, err := packStream(st, stream)
		if err != nil || fmt.Sprint(again) != fmt.Sprint(want) {
			t.Errorf("%s: packing again: %v %v, want %v", f.what, again, err, want)
		}
		checkClean(t, st, store.Hash{}, f.what+", packed again")
	})
}
