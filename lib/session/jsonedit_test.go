package session

import "testing"

func TestSetString(t *testing.T) {
	for _, c := range []struct {
		in, value string
		path      []string
		want      string
		ok        bool
	}{
		{`{"a":1,"cwd":"/old","b":"x"}`, "/new", []string{"cwd"}, `{"a":1,"cwd":"/new","b":"x"}`, true},
		{`{ "cwd" : "/o\"ld" , "z":[1,{"cwd":"/in"}]}`, `/n"ew`, []string{"cwd"}, `{ "cwd" : "/n\"ew" , "z":[1,{"cwd":"/in"}]}`, true},
		// Only the top level's key: a nested one of the same name stays.
		{`{"message":{"cwd":"/in"},"cwd":"/old"}`, "/new", []string{"cwd"}, `{"message":{"cwd":"/in"},"cwd":"/new"}`, true},
		{`{"message":{"cwd":"/in"}}`, "/new", []string{"cwd"}, `{"message":{"cwd":"/in"}}`, false},
		{`{"cwd":null}`, "/new", []string{"cwd"}, `{"cwd":null}`, false},
		{`{"type":"session_meta","payload":{"id":"x","cwd":"/old"}}`, "/new", []string{"payload", "cwd"}, `{"type":"session_meta","payload":{"id":"x","cwd":"/new"}}`, true},
		{`{"payload":"cwd"}`, "/new", []string{"payload", "cwd"}, `{"payload":"cwd"}`, false},
		{`not json`, "/new", []string{"cwd"}, `not json`, false},
		{`{"cwd":"/old"`, "/new", []string{"cwd"}, `{"cwd":"/new"`, true},
	} {
		got, ok := setString([]byte(c.in), c.value, c.path...)
		if string(got) != c.want || ok != c.ok {
			t.Errorf("setString(%s, %q, %v) = %s, %v; want %s, %v", c.in, c.value, c.path, got, ok, c.want, c.ok)
		}
	}
}

func TestCodexLines(t *testing.T) {
	r := &restorer{opts: RestoreOptions{Cwd: "/new dir"}, to: "codex", id: "id-2"}
	edit := r.lineEditor("id-1", new(string))
	for _, c := range []struct{ in, want string }{
		{`{"type":"session_meta","payload":{"id":"id-1","session_id":"id-1","cwd":"/old","runtime_workspace_roots":["/old","/other"],"model_provider":"p"}}`,
			`{"type":"session_meta","payload":{"id":"id-2","session_id":"id-2","cwd":"/new dir","runtime_workspace_roots":["/new dir","/other"],"model_provider":"p"}}`},
		{`{"type":"turn_context","payload":{"cwd":"/old","model":"m"}}`, `{"type":"turn_context","payload":{"cwd":"/new dir","model":"m"}}`},
		{`{"type":"response_item","payload":{"type":"message","content":[{"text":"<cwd>/old</cwd> <root>/old</root> /old/a.txt"}]}}`,
			`{"type":"response_item","payload":{"type":"message","content":[{"text":"<cwd>/new dir</cwd> <root>/new dir</root> /old/a.txt"}]}}`},
		{`{"type":"event_msg","payload":{"cwd":"/old"}}`, `{"type":"event_msg","payload":{"cwd":"/old"}}`},
	} {
		if got := string(edit([]byte(c.in))); got != c.want {
			t.Errorf("codex line\n%s\n= %s\nwant %s", c.in, got, c.want)
		}
	}
}
