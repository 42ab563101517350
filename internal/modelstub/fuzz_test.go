package modelstub

import (
	"net/http/httptest"
	"testing"
)

// FuzzRequest feeds any body to the four readers of a model request and to
// the answer, which must never panic whatever an agent sends.
func FuzzRequest(f *testing.F) {
	f.Add([]byte(`{"messages":[{"role":"user","content":"TASK"}],"tools":[{"name":"read"}]}`))
	f.Add([]byte(`{"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"TASK"}]}],"tools":[{"type":"custom","name":"patch"}]}`))
	f.Add([]byte(`{"contents":[{"role":"user","parts":[{"text":"TASK"}]}],"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object","properties":{"a":{"type":"array"}}}}}`))
	f.Add([]byte(`{"input":"TASK","stream":true}`))
	script := testScript()
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, read := range []func([]byte) (request, error){readAnthropic, readResponses, readChat, readGemini} {
			req, err := read(body)
			if err != nil {
				continue
			}
			turn := Turn{Text: script.DefaultText()}
			if _, tt, ok := script.choose(req.prompt, req.turns); ok {
				turn = tt
			}
			if req.schema != nil {
				fromSchema(req.schema, "ok")
			}
			a := answer{turn: turn, req: req, id: "x"}
			a.anthropic(httptest.NewRecorder())
			a.responses(httptest.NewRecorder())
			a.chat(httptest.NewRecorder())
			a.gemini(httptest.NewRecorder())
		}
	})
}
