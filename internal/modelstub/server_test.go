package modelstub

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
)

func testScript() Script {
	return Script{Conversations: []Conversation{{Match: "TASK", Turns: []Turn{
		{Text: "reading", Calls: []Call{{Name: "read", Args: json.RawMessage(`{"path":"a.txt"}`)}}},
		{Calls: []Call{{Name: "patch", Args: json.RawMessage(`"*** Begin Patch\n*** End Patch\n"`)}}},
		{Text: "done"},
	}}}}
}

func start(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "script.json")
	if err := WriteScript(script, testScript()); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	srv := httptest.NewServer(NewServer(script, &log))
	t.Cleanup(srv.Close)
	return srv, dir
}

func post(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("POST %s: %d %s", url, resp.StatusCode, b)
	}
	return string(b)
}

// events returns the data of each server-sent event.
func events(t *testing.T, stream string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(stream))
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		out = append(out, m)
	}
	return out
}

// TestTurnFollowsHistory holds each API to the rule that picks a turn: the
// latest prompt's conversation, at the number of model turns after it.
func TestTurnFollowsHistory(t *testing.T) {
	srv, _ := start(t)
	tools := map[string]string{
		"/v1/messages":         `"tools":[{"name":"read"},{"name":"patch"}]`,
		"/v1/responses":        `"tools":[{"type":"function","name":"read"},{"type":"custom","name":"patch"}]`,
		"/v1/chat/completions": `"tools":[{"type":"function","function":{"name":"read"}},{"type":"function","function":{"name":"patch"}}]`,
	}
	cases := []struct {
		path, body, want string
	}{
		// Anthropic: a prompt, then one assistant turn and its result: turn 1.
		{"/v1/messages", `{"model":"m","stream":true,"messages":[{"role":"user","content":[{"type":"text","text":"do the TASK"}]},
			{"role":"assistant","content":[{"type":"tool_use","id":"x","name":"read","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"hi"}]}],TOOLS}`, `"name":"patch"`},
		// A new prompt after a finished exchange starts over at turn 0.
		{"/v1/messages", `{"model":"m","stream":true,"messages":[{"role":"user","content":"old"},{"role":"assistant","content":"x"},
			{"role":"user","content":"TASK again"}],TOOLS}`, `"partial_json"`},
		// Responses: developer and user context first, a custom tool call answered as one.
		{"/v1/responses", `{"model":"m","stream":true,"input":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"rules"}]},
			{"type":"message","role":"user","content":[{"type":"input_text","text":"TASK"}]},
			{"type":"reasoning","summary":[]},{"type":"function_call","call_id":"c","name":"read","arguments":"{}"},
			{"type":"function_call_output","call_id":"c","output":"hi"}],TOOLS}`, `"type":"custom_tool_call"`},
		// Chat Completions: past the last turn, the default.
		{"/v1/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"TASK"},
			{"role":"assistant","tool_calls":[]},{"role":"tool","content":"a"},{"role":"assistant","tool_calls":[]},{"role":"tool","content":"b"},
			{"role":"assistant","content":"done"},{"role":"tool","content":"c"}],TOOLS}`, `"content":"o"`},
		// Gemini: function responses are results, not prompts.
		{"/v1beta/models/g:streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"text":"TASK"}]},
			{"role":"model","parts":[{"functionCall":{"name":"read","args":{}}}]},
			{"role":"user","parts":[{"functionResponse":{"name":"read","response":{}}}]}],
			"tools":[{"functionDeclarations":[{"name":"read"},{"name":"patch"}]}]}`, `"functionCall"`},
	}
	for _, c := range cases {
		body := strings.Replace(c.body, "TOOLS", tools[strings.SplitN(c.path, "?", 2)[0]], 1)
		got := post(t, srv.URL+c.path, body)
		if !strings.Contains(got, c.want) {
			t.Errorf("%s %s\n= %s\nwant it to hold %s", c.path, c.body, got, c.want)
		}
		events(t, got)
	}
}

// TestStreamsParse checks that each API's stream is well formed: events
// whose data is JSON, ending as the API ends (message_stop,
// response.completed, [DONE], a finishReason).
func TestStreamsParse(t *testing.T) {
	srv, _ := start(t)
	prompt := `"TASK"`
	for _, c := range []struct{ path, body, last string }{
		{"/v1/messages", `{"stream":true,"messages":[{"role":"user","content":` + prompt + `}],"tools":[{"name":"read"}]}`, "message_stop"},
		{"/v1/responses", `{"stream":true,"input":` + prompt + `,"tools":[{"type":"function","name":"read"}]}`, "response.completed"},
		{"/v1/chat/completions", `{"stream":true,"messages":[{"role":"user","content":` + prompt + `}],"tools":[{"function":{"name":"read"}}]}`, ""},
	} {
		evs := events(t, post(t, srv.URL+c.path, c.body))
		if len(evs) < 3 {
			t.Fatalf("%s: %d events", c.path, len(evs))
		}
		if c.last != "" && evs[len(evs)-1]["type"] != c.last {
			t.Errorf("%s: last event %v, want %s", c.path, evs[len(evs)-1]["type"], c.last)
		}
	}
}

// TestJSONSideRequests: a Gemini request that wants JSON gets a value its
// schema accepts (Gemini CLI's router retries anything else for minutes).
func TestJSONSideRequests(t *testing.T) {
	srv, _ := start(t)
	got := post(t, srv.URL+"/v1beta/models/lite:generateContent", `{"contents":[{"role":"user","parts":[{"text":"x"}]}],
		"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"OBJECT",
		"properties":{"why":{"type":"STRING"},"score":{"type":"INTEGER","minimum":1},"kind":{"type":"STRING","enum":["a","b"]}}}}}`)
	var resp struct {
		Candidates []struct {
			Content struct {
				Parts []struct{ Text string } `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(got), &resp); err != nil || len(resp.Candidates) == 0 {
		t.Fatalf("%s: %v", got, err)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(resp.Candidates[0].Content.Parts[0].Text), &v); err != nil {
		t.Fatalf("the answer is not JSON: %v", err)
	}
	if v["score"] != 1.0 || v["kind"] != "a" || v["why"] != "ok" {
		t.Errorf("answer %v", v)
	}
}

// TestEscapesAreRefusedAndLogged: a request sent through the stand-in as a
// proxy is refused and logged.
func TestEscapesAreRefusedAndLogged(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "script.json")
	WriteScript(script, Script{})
	var log bytes.Buffer
	srv := httptest.NewServer(NewServer(script, &log))
	defer srv.Close()
	req, _ := http.NewRequest("GET", "http://example.invalid/update", nil)
	u, _ := url.Parse(srv.URL)
	proxied := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(u)}}
	resp, err := proxied.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("status %d, want 403", resp.StatusCode)
	}
	var rec Record
	if err := json.Unmarshal(log.Bytes(), &rec); err != nil || rec.Answer != "escape" || rec.Host != "example.invalid" {
		t.Errorf("log %s: %v", log.Bytes(), err)
	}
}
