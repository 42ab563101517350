// Package record is ctx record: an OTLP/HTTP receiver that turns the
// GenAI traces an instrumented agent exports into packs while it runs. It
// is the pipe `ctx convert --from otel | ctx pack -`, live: the spans go
// through lib/convert's OTel spool and mapping (the one code path), and
// each trace's log through pack.Save.
//
// It must never hold a trace whole in memory (spans wait in the spool's
// files), never pack part of a trace without saying so (in the pack's
// metadata and on stderr), never listen beyond the loopback interface
// unless told to, and never let the program it runs see anything of it
// but the OTEL_ variables that point the program's exporter at it.
package record

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/contextsubstrate/ctx/lib/convert"
)

// DefaultMaxBody is the largest export request taken, compressed or not:
// the collector's own default.
const DefaultMaxBody = 20 << 20

// decoders bounds how many requests are decoded at once, so memory stays
// bounded whatever number of clients send.
const decoders = 2

// Receiver answers OTLP/HTTP export requests as a collector does and
// hands their spans and GenAI log records to a spool.
type Receiver struct {
	spool   *convert.OTelSpool
	maxBody int64
	// received is told the traces each request added to.
	received func(ids []string)
	sem      chan struct{}

	mu    sync.Mutex
	stats ReceiverStats
}

// ReceiverStats counts what a receiver was sent.
type ReceiverStats struct {
	Requests int            // export requests taken (200)
	Refused  map[int]int    // requests refused, by HTTP status
	Reasons  map[int]string // the first reason given for each status
	NotGenAI int            // log records that were no GenAI event
	NoTrace  int            // GenAI log records that named no trace
}

func newReceiver(spool *convert.OTelSpool, maxBody int64, received func([]string)) *Receiver {
	if maxBody <= 0 {
		maxBody = DefaultMaxBody
	}
	return &Receiver{spool: spool, maxBody: maxBody, received: received, sem: make(chan struct{}, decoders),
		stats: ReceiverStats{Refused: map[int]int{}, Reasons: map[int]string{}}}
}

// Stats returns what the receiver was sent so far.
func (rc *Receiver) Stats() ReceiverStats {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	s := rc.stats
	s.Refused, s.Reasons = map[int]int{}, map[int]string{}
	for k, v := range rc.stats.Refused {
		s.Refused[k] = v
	}
	for k, v := range rc.stats.Reasons {
		s.Reasons[k] = v
	}
	return s
}

// refused reports the number of requests refused so far.
func (rc *Receiver) refused() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	n := 0
	for _, c := range rc.stats.Refused {
		n += c
	}
	return n
}

// encoding is the body format of a request: protobuf or JSON.
type encoding struct{ json bool }

func (e encoding) contentType() string {
	if e.json {
		return "application/json"
	}
	return "application/x-protobuf"
}

// ServeHTTP takes POST /v1/traces and POST /v1/logs.
func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	logs := false
	switch r.URL.Path {
	case "/v1/traces":
	case "/v1/logs":
		logs = true
	default:
		rc.fail(w, encoding{}, http.StatusNotFound, fmt.Sprintf("%s: no such endpoint (POST /v1/traces or /v1/logs)", r.URL.Path))
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		rc.fail(w, encoding{}, http.StatusMethodNotAllowed, r.Method+" "+r.URL.Path+": only POST")
		return
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var enc encoding
	switch mt {
	case "application/x-protobuf", "application/protobuf":
	case "application/json":
		enc.json = true
	default:
		rc.fail(w, encoding{}, http.StatusUnsupportedMediaType,
			fmt.Sprintf("content type %q: OTLP/HTTP is application/x-protobuf or application/json", r.Header.Get("Content-Type")))
		return
	}
	rc.sem <- struct{}{}
	defer func() { <-rc.sem }()
	data, status, err := rc.body(w, r)
	if err != nil {
		rc.fail(w, enc, status, err.Error())
		return
	}
	if logs {
		err = rc.takeLogs(data, enc)
	} else {
		err = rc.takeTraces(data, enc)
	}
	var spoolErr *spoolError
	var tooLarge *convert.OTelTooLargeError
	switch {
	case errors.As(err, &tooLarge):
		// Refused now, while the exporter can still act: taken, the span
		// could not be packed.
		rc.fail(w, enc, http.StatusRequestEntityTooLarge, err.Error())
		return
	case errors.As(err, &spoolErr):
		rc.fail(w, enc, http.StatusInternalServerError, err.Error())
		return
	case err != nil:
		rc.fail(w, enc, http.StatusBadRequest, err.Error())
		return
	}
	rc.mu.Lock()
	rc.stats.Requests++
	rc.mu.Unlock()
	rc.ok(w, enc, logs)
}

// spoolError is a failure to keep what was received (the disk), not the
// client's fault.
type spoolError struct{ err error }

func (e *spoolError) Error() string { return e.err.Error() }

// spoolFailure is err of the spool: a span refused as too large, or a
// failure to write the spool.
func spoolFailure(err error) error {
	var tooLarge *convert.OTelTooLargeError
	if errors.As(err, &tooLarge) {
		return err
	}
	return &spoolError{err}
}

func (rc *Receiver) takeTraces(data []byte, enc encoding) error {
	req := ptraceotlp.NewExportRequest()
	var err error
	if enc.json {
		err = req.UnmarshalJSON(data)
	} else {
		err = req.UnmarshalProto(data)
	}
	if err != nil {
		return fmt.Errorf("malformed OTLP %s traces: %v", kindOf(enc), clip(err.Error()))
	}
	ids, err := rc.spool.AddTraces(req.Traces())
	if err != nil {
		return spoolFailure(err)
	}
	if rc.received != nil {
		rc.received(ids)
	}
	return nil
}

func (rc *Receiver) takeLogs(data []byte, enc encoding) error {
	req := plogotlp.NewExportRequest()
	var err error
	if enc.json {
		err = req.UnmarshalJSON(data)
	} else {
		err = req.UnmarshalProto(data)
	}
	if err != nil {
		return fmt.Errorf("malformed OTLP %s logs: %v", kindOf(enc), clip(err.Error()))
	}
	added, err := rc.spool.AddLogs(req.Logs())
	if err != nil {
		return spoolFailure(err)
	}
	rc.mu.Lock()
	rc.stats.NotGenAI += added.NotGenAI
	rc.stats.NoTrace += added.NoTrace
	rc.mu.Unlock()
	if rc.received != nil {
		rc.received(added.Traces)
	}
	return nil
}

func kindOf(enc encoding) string {
	if enc.json {
		return "JSON"
	}
	return "protobuf"
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// body reads a request's body, decompressed, within the limit.
func (rc *Receiver) body(w http.ResponseWriter, r *http.Request) ([]byte, int, error) {
	tooBig := fmt.Errorf("the request is larger than %d bytes", rc.maxBody)
	if r.ContentLength > rc.maxBody {
		// Said before reading a byte of it.
		return nil, http.StatusRequestEntityTooLarge, tooBig
	}
	body := http.MaxBytesReader(w, r.Body, rc.maxBody)
	var in io.Reader = body
	switch ce := r.Header.Get("Content-Encoding"); ce {
	case "", "identity":
	case "gzip":
		gz, err := gzip.NewReader(body)
		if err != nil {
			return nil, bodyStatus(err), fmt.Errorf("bad gzip data: %v", err)
		}
		defer gz.Close()
		in = io.LimitReader(gz, rc.maxBody+1)
	default:
		return nil, http.StatusBadRequest, fmt.Errorf("content encoding %q: gzip or none", ce)
	}
	data, err := io.ReadAll(in)
	if err != nil {
		if bodyStatus(err) == http.StatusRequestEntityTooLarge {
			return nil, http.StatusRequestEntityTooLarge, tooBig
		}
		return nil, http.StatusBadRequest, fmt.Errorf("cannot read the request: %v", err)
	}
	if int64(len(data)) > rc.maxBody {
		return nil, http.StatusRequestEntityTooLarge, fmt.Errorf("the request decompresses to more than %d bytes", rc.maxBody)
	}
	return data, http.StatusOK, nil
}

func bodyStatus(err error) int {
	var mb *http.MaxBytesError
	if errors.As(err, &mb) {
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusBadRequest
}

// ok answers with an empty export response, as a collector that took
// everything does.
func (rc *Receiver) ok(w http.ResponseWriter, enc encoding, logs bool) {
	var body []byte
	var err error
	switch {
	case logs && enc.json:
		body, err = plogotlp.NewExportResponse().MarshalJSON()
	case logs:
		body, err = plogotlp.NewExportResponse().MarshalProto()
	case enc.json:
		body, err = ptraceotlp.NewExportResponse().MarshalJSON()
	default:
		body, err = ptraceotlp.NewExportResponse().MarshalProto()
	}
	if err != nil {
		rc.fail(w, enc, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", enc.contentType())
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// grpcCodes are the google.rpc.Status codes of the statuses the receiver
// answers with (OTLP/HTTP carries a Status in error responses).
func grpcCode(status int) int32 {
	switch status {
	case http.StatusBadRequest:
		return 3 // INVALID_ARGUMENT
	case http.StatusRequestEntityTooLarge:
		return 8 // RESOURCE_EXHAUSTED
	case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusUnsupportedMediaType:
		return 12 // UNIMPLEMENTED
	}
	return 13 // INTERNAL
}

// fail answers with an error status and a google.rpc.Status body in the
// request's encoding, and counts the refusal.
func (rc *Receiver) fail(w http.ResponseWriter, enc encoding, status int, msg string) {
	rc.mu.Lock()
	rc.stats.Refused[status]++
	if rc.stats.Reasons[status] == "" {
		rc.stats.Reasons[status] = msg
	}
	rc.mu.Unlock()
	st := &spb.Status{Code: grpcCode(status), Message: msg}
	var body []byte
	var err error
	if enc.json {
		body, err = protojson.Marshal(st)
	} else {
		body, err = proto.Marshal(st)
	}
	if err != nil {
		http.Error(w, msg, status)
		return
	}
	if status == http.StatusRequestEntityTooLarge {
		// The rest of the body is not read: the connection cannot be
		// used again.
		w.Header().Set("Connection", "close")
	}
	w.Header().Set("Content-Type", enc.contentType())
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
