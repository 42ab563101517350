package convert

import "testing"

// Fuzz targets of the readers of codex.go, responses.go, agents.go,
// gemini.go, miniswe.go, atif.go and cline.go, seeded with the corpus
// (as fuzz_test.go's are) and small hand-made transcripts.

func FuzzCodex(f *testing.F) {
	fuzzSeeds(f, "codex", 32<<10,
		`{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"s","cwd":"/w","base_instructions":{"text":"sys"}}}
{"timestamp":"2026-01-01T00:00:01Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1},"last_token_usage":{"input_tokens":1}}}}
{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls /w\"}","call_id":"c"}}
{"timestamp":"2026-01-01T00:00:02Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"c","status":"declined"}}
{"timestamp":"2026-01-01T00:00:02Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"Chunk ID: 1\nWall time: 0 seconds\nProcess exited with code 1\nOutput:\nno\n"}}
{"timestamp":"2026-01-01T00:00:03Z","type":"compacted","payload":{"message":"m","replacement_history":[]}}
`)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzConvert(t, "codex", data) })
}

func FuzzResponses(f *testing.F) {
	fuzzSeeds(f, "responses", 32<<10,
		`[{"type":"message","role":"developer","content":"d"},{"type":"reasoning","summary":[{"type":"summary_text","text":"s"}]},{"type":"local_shell_call","call_id":"l","action":{"type":"exec","command":["ls"]}},{"type":"local_shell_call_output","call_id":"l","output":"x"},{"type":"computer_call","call_id":"k","action":{"type":"click"}},{"type":"computer_call_output","call_id":"k","output":{"type":"computer_screenshot"}}]`)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzConvert(t, "responses", data) })
}

func FuzzOpenAIAgents(f *testing.F) {
	fuzzSeeds(f, "openai-agents", 32<<10,
		`[{"object":"trace","id":"t"},{"object":"trace.span","started_at":"x","span_data":{"type":"custom","name":"task","data":{"n":99999999999999999999}}}]`)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzConvert(t, "openai-agents", data) })
}

func FuzzGeminiCLI(f *testing.F) {
	fuzzSeeds(f, "gemini-cli", 32<<10,
		`{"sessionId":"s","projectHash":"h","messages":[{"id":"a","type":"user","content":"x"}]}
{"$set":{"messages":[{"id":"a","type":"user","content":"x"},{"id":"b","type":"gemini","content":[{"text":"y"}],"toolCalls":[{"id":"t","name":"replace","args":{"file_path":"/p"},"status":"success","resultDisplay":{"fileName":"p","originalContent":"a","newContent":"b"}}]}]}}
{"$rewindTo":"zzz"}
`)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzConvert(t, "gemini-cli", data) })
}

func FuzzMiniSWEAgent(f *testing.F) {
	fuzzSeeds(f, "mini-swe-agent", 32<<10)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzConvert(t, "mini-swe-agent", data) })
}

func FuzzATIF(f *testing.F) {
	fuzzSeeds(f, "atif", 16<<10)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzConvert(t, "atif", data) })
}

func FuzzCline(f *testing.F) {
	fuzzSeeds(f, "cline", 32<<10)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzConvert(t, "cline", data) })
}

func FuzzSpanTrajectory(f *testing.F) {
	f.Add([]byte(`{"instance_id":"a__b-1","session_id":"s","trajectory":[{"type":"llm_call","model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":"fix"}],"response":"ls","tool_calls":[{"name":"bash"}],"timestamp":"2026-01-01T00:00:00Z"},{"type":"tool_call","tool":"bash","arguments":"{\"cmd\":\"ls\"}","result":{"out":"a"},"timestamp":"2026-01-01T00:00:01Z"},{"type":"judge_call","verdict":"ok"}]}`))
	f.Add([]byte(`{"instance_id":"x","session_id":"s","trajectory":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzConvert(t, "swe-spans", data) })
}
