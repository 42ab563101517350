package modelstub

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
)

// The APIs the stand-in speaks, as Record.API names them.
const (
	Anthropic = "anthropic" // POST .../messages (Claude Code)
	Responses = "responses" // POST .../responses (Codex)
	Chat      = "chat"      // POST .../chat/completions (OpenCode's OpenAI-compatible provider)
	Gemini    = "gemini"    // POST .../models/M:streamGenerateContent, :generateContent (Gemini CLI)
)

// Record is one line of the request log: a request and how it was answered.
type Record struct {
	Seq    int                 `json:"seq"`
	Method string              `json:"method"`
	Path   string              `json:"path"`
	Query  string              `json:"query,omitempty"`
	Host   string              `json:"host,omitempty"`
	Header map[string][]string `json:"header,omitempty"`
	// Body is the request's body: its JSON, or BodyText when it is not JSON.
	Body     json.RawMessage `json:"body,omitempty"`
	BodyText string          `json:"body_text,omitempty"`
	// API is the API the request was answered as ("" for side requests
	// answered otherwise: token counts, model lists, refusals).
	API    string `json:"api,omitempty"`
	Stream bool   `json:"stream,omitempty"`
	// Prompt is the request's latest prompt, Turns the model turns after
	// it, Tools the names of the tools it offers.
	Prompt string   `json:"prompt,omitempty"`
	Turns  int      `json:"turns,omitempty"`
	Tools  []string `json:"tools,omitempty"`
	// Answer says what was answered: "turn" (Conversation's Turn),
	// "default", "count", "models", "not_found", or "escape" (a request
	// that tried to leave the machine through the stand-in as a proxy:
	// refused).
	Answer       string `json:"answer"`
	Conversation int    `json:"conversation"`
	Turn         int    `json:"turn"`
	Status       int    `json:"status"`
	// Problems are what the stand-in found wrong with the script for this
	// request (a call to a tool the request does not offer).
	Problems []string `json:"problems,omitempty"`
}

// ReadLog reads a request log.
func ReadLog(path string) ([]Record, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []Record
	dec := json.NewDecoder(bytes.NewReader(b))
	for dec.More() {
		var r Record
		if err := dec.Decode(&r); err != nil {
			return out, fmt.Errorf("%s: record %d: %v", path, len(out)+1, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// Server is the stand-in: an http.Handler answering from the script file
// and appending to the log file.
type Server struct {
	ScriptPath string
	mu         sync.Mutex
	log        io.Writer
	seq        int
}

// NewServer returns a stand-in answering from the script at scriptPath and
// logging to log.
func NewServer(scriptPath string, log io.Writer) *Server {
	return &Server{ScriptPath: scriptPath, log: log}
}

// maxBody bounds a request body (an agent's whole history).
const maxBody = 64 << 20

// ServeHTTP answers a request and logs it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &Record{Seq: s.next(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: headers(r.Header), Conversation: -1}
	if r.Method == http.MethodConnect || r.URL.IsAbs() {
		// Agents run with HTTPS_PROXY and HTTP_PROXY naming the stand-in,
		// so whatever would leave the machine arrives here instead.
		rec.Host = r.Host
		rec.Answer = "escape"
		rec.Status = http.StatusForbidden
		s.write(rec)
		http.Error(w, "the model stand-in refuses to proxy to "+r.Host, http.StatusForbidden)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		rec.Answer, rec.Status = "bad_body", http.StatusBadRequest
		s.write(rec)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if json.Valid(body) {
		rec.Body = body
	} else if len(body) > 0 {
		rec.BodyText = string(body)
	}
	script, err := ReadScript(s.ScriptPath)
	if err != nil {
		rec.Answer, rec.Status = "bad_script", http.StatusInternalServerError
		rec.Problems = []string{err.Error()}
		s.write(rec)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	s.route(w, r, body, script, rec)
	s.write(rec)
}

func (s *Server) route(w http.ResponseWriter, r *http.Request, body []byte, script Script, rec *Record) {
	p := r.URL.Path
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/messages/count_tokens"):
		countTokens(w, rec, body, "input_tokens")
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/messages"):
		s.answer(w, rec, body, script, Anthropic)
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/responses"):
		s.answer(w, rec, body, script, Responses)
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/chat/completions"):
		s.answer(w, rec, body, script, Chat)
	case r.Method == http.MethodPost && strings.HasSuffix(p, ":countTokens"):
		countTokens(w, rec, body, "totalTokens")
	case r.Method == http.MethodPost && (strings.HasSuffix(p, ":streamGenerateContent") || strings.HasSuffix(p, ":generateContent")):
		s.answer(w, rec, body, script, Gemini)
	case r.Method == http.MethodGet && strings.HasSuffix(p, "/models"):
		models(w, rec)
	default:
		rec.Answer, rec.Status = "not_found", http.StatusNotFound
		writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{
			"type": "not_found_error", "message": "the model stand-in has no " + r.Method + " " + p}})
	}
}

// answer reads the request as api, chooses its turn and streams it.
func (s *Server) answer(w http.ResponseWriter, rec *Record, body []byte, script Script, api string) {
	rec.API = api
	var req request
	var err error
	switch api {
	case Anthropic:
		req, err = readAnthropic(body)
	case Responses:
		req, err = readResponses(body)
	case Chat:
		req, err = readChat(body)
	case Gemini:
		req, err = readGemini(body)
		req.model = modelOf(rec.Path)
		req.stream = strings.HasSuffix(rec.Path, ":streamGenerateContent")
		req.array = req.stream && !strings.Contains(rec.Query, "alt=sse")
	}
	if err != nil {
		rec.Answer, rec.Status = "bad_request", http.StatusBadRequest
		rec.Problems = append(rec.Problems, err.Error())
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"type": "invalid_request_error", "message": err.Error()}})
		return
	}
	rec.Stream, rec.Prompt, rec.Turns = req.stream, req.prompt, req.turns
	for name := range req.tools {
		rec.Tools = append(rec.Tools, name)
	}
	sort.Strings(rec.Tools)
	turn := Turn{Text: script.DefaultText()}
	rec.Answer = "default"
	if req.schema != nil {
		b, _ := json.Marshal(fromSchema(req.schema, script.DefaultText()))
		turn.Text = string(b)
	}
	if len(req.tools) > 0 {
		if conv, t, ok := script.choose(req.prompt, req.turns); ok {
			turn, rec.Answer, rec.Conversation, rec.Turn = t, "turn", conv, req.turns
		} else if conv >= 0 {
			rec.Conversation, rec.Turn = conv, req.turns
		}
	}
	for _, c := range turn.Calls {
		if _, ok := req.tools[c.Name]; !ok {
			rec.Problems = append(rec.Problems, fmt.Sprintf("the request offers no tool %q", c.Name))
		}
	}
	rec.Status = http.StatusOK
	a := answer{turn: turn, req: req, id: answerID(rec), inTokens: len(body) / 4}
	switch api {
	case Anthropic:
		a.anthropic(w)
	case Responses:
		a.responses(w)
	case Chat:
		a.chat(w)
	case Gemini:
		a.gemini(w)
	}
}

// answerID names an answer's messages and calls: the same conversation
// and turn give the same ids, so a remade corpus file differs only where
// the agent's own output does.
func answerID(rec *Record) string {
	if rec.Answer != "turn" {
		return fmt.Sprintf("stub_r%d", rec.Seq)
	}
	return fmt.Sprintf("stub_c%d_t%d", rec.Conversation, rec.Turn)
}

func countTokens(w http.ResponseWriter, rec *Record, body []byte, field string) {
	rec.Answer, rec.Status = "count", http.StatusOK
	writeJSON(w, http.StatusOK, map[string]any{field: len(body)/4 + 1})
}

func models(w http.ResponseWriter, rec *Record) {
	rec.Answer, rec.Status = "models", http.StatusOK
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
}

func (s *Server) next() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return s.seq
}

func (s *Server) write(rec *Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, _ := json.Marshal(rec)
	s.log.Write(append(b, '\n'))
}

// headers keeps the request's headers but the credentials (the agents'
// placeholder keys, never real ones, but a log is no place for a key).
func headers(h http.Header) map[string][]string {
	out := map[string][]string{}
	for k, v := range h {
		switch strings.ToLower(k) {
		case "authorization", "x-api-key", "x-goog-api-key", "cookie":
			out[k] = []string{"(removed)"}
		default:
			out[k] = v
		}
	}
	return out
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
