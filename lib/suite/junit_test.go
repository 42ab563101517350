package suite

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/internal/storetest"
)

// TestJUnitReadsBack writes a suite diff as JUnit XML and reads it back
// with encoding/xml, as a CI system's test reporter would: one testcase
// per task, a failure for the regression, an error for the errored task,
// skipped for the task of one side only; the counts in the attributes
// are those of the cases.
func TestJUnitReadsBack(t *testing.T) {
	st := storetest.New(t)
	add := func(name, log string) *Named {
		s, _, err := Add(st, name, AddOptions{Sources: []string{"-"}, Stdin: strings.NewReader(log)})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	run := func(task, rest string) string {
		out := "ok"
		if strings.Contains(rest, "false") {
			out = "FAIL"
		}
		return `{"event":"run","model":{"identifier":"m"},"task":{"id":"` + task + `"},` + rest + "}\n" +
			`{"event":"step","tool":"bash","parameters":{"command":"make test"},"output":"` + out + `"}` + "\n"
	}
	pass, fail := `"outcome":{"passed":true}`, `"outcome":{"passed":false}`
	errored := `"end":{"state":"error","message":"test_timeout"}`
	a := add("base", run("t1", pass)+run("t2", pass)+run("t3", fail)+run("t4", pass)+run("t<5>", pass))
	b := add("cand", run("t1", fail)+run("t2", pass)+run("t3", pass)+run("t4", errored))
	rep, err := Diff(st, a, b, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteDiffJUnit(&out, rep); err != nil {
		t.Fatal(err)
	}
	type problem struct {
		Type    string `xml:"type,attr"`
		Message string `xml:"message,attr"`
		Body    string `xml:",chardata"`
	}
	var doc struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Errors   int      `xml:"errors,attr"`
		Skipped  int      `xml:"skipped,attr"`
		Suite    []struct {
			Name       string `xml:"name,attr"`
			Tests      int    `xml:"tests,attr"`
			Properties []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
			Cases []struct {
				Name      string   `xml:"name,attr"`
				Classname string   `xml:"classname,attr"`
				Failure   *problem `xml:"failure"`
				Error     *problem `xml:"error"`
				Skipped   *problem `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if doc.Tests != 5 || doc.Failures != 1 || doc.Errors != 1 || doc.Skipped != 1 || len(doc.Suite) != 1 || doc.Suite[0].Tests != 5 {
		t.Fatalf("counts: %+v\n%s", doc, out.String())
	}
	s := doc.Suite[0]
	var got []string
	for _, c := range s.Cases {
		kind := "ok"
		switch {
		case c.Failure != nil:
			kind = "failure:" + c.Failure.Type
		case c.Error != nil:
			kind = "error:" + c.Error.Type
		case c.Skipped != nil:
			kind = "skipped"
		}
		if c.Classname != "cand" {
			t.Errorf("%s: classname %q", c.Name, c.Classname)
		}
		got = append(got, c.Name+"="+kind)
	}
	if want := "t1=failure:regressed t3=ok t4=error:errored t<5>=skipped t2=ok"; strings.Join(got, " ") != want {
		t.Errorf("cases %s, want %s", strings.Join(got, " "), want)
	}
	f := s.Cases[0].Failure
	if f.Message != "regressed: passed in base, failed in cand" || !strings.Contains(f.Body, "drift: 1 tool result; first divergence step 0") || !strings.Contains(f.Body, "ctx diff sha256:") {
		t.Errorf("failure %+v", f)
	}
	if e := s.Cases[2].Error; !strings.Contains(e.Message, "errored: passed in base, errored in cand") {
		t.Errorf("error %+v", e)
	}
	props := map[string]string{}
	for _, p := range s.Properties {
		props[p.Name] = p.Value
	}
	if props["compared"] != "runs" || props["mcnemar_p"] != "1" || !strings.HasPrefix(props["a"], "base ctx://") {
		t.Errorf("properties %v", props)
	}
}
