package transcript

import "testing"

// FuzzFormat feeds any head to the detection: it never panics, and what
// it names is a format ctx convert has.
func FuzzFormat(f *testing.F) {
	f.Add([]byte(`{"type":"user","message":{"role":"user","content":"hi"},"sessionId":"s","uuid":"u"}` + "\n"))
	f.Add([]byte(`{"messages":[{"role":"user","content":"hi"}]}`))
	f.Add([]byte(`{"event":"run","model":{"identifier":"m"}}`))
	f.Add([]byte{0x1f, 0x8b, 8, 0})
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, head []byte) {
		if len(head) > HeadSize {
			head = head[:HeadSize]
		}
		if got := Format(head); got != "" && !known(got) {
			t.Fatalf("Format named %q, no format of ctx convert", got)
		}
	})
}
