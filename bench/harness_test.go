package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	for _, tc := range []struct {
		name string
		in   []sample
		want sample
	}{
		{"none", nil, sample{}},
		{"one", []sample{{ms(5), ms(4), 100}}, sample{ms(5), ms(4), 100}},
		{"odd count takes the middle", []sample{{ms(9), ms(1), 10}, {ms(1), ms(3), 30}, {ms(5), ms(2), 20}}, sample{ms(5), ms(2), 30}},
		{"even count takes the mean of the middle two", []sample{{ms(1), ms(1), 5}, {ms(10), ms(4), 7}, {ms(2), ms(2), 6}, {ms(4), ms(8), 1}}, sample{ms(3), ms(3), 7}},
		{"peak RSS is the worst run, not the median", []sample{{ms(1), 0, 1}, {ms(1), 0, 900}, {ms(1), 0, 2}}, sample{ms(1), 0, 900}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := median(tc.in); got != tc.want {
				t.Errorf("median = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestOrderAlternates(t *testing.T) {
	for _, tc := range []struct {
		n, run int
		want   []int
	}{
		{3, 0, []int{0, 1, 2}},
		{3, 1, []int{2, 1, 0}},
		{3, 2, []int{0, 1, 2}},
		{1, 1, []int{0}},
	} {
		if got := order(tc.n, tc.run); !slices.Equal(got, tc.want) {
			t.Errorf("order(%d, %d) = %v, want %v", tc.n, tc.run, got, tc.want)
		}
	}
}

func TestSpliceKeepsTheProse(t *testing.T) {
	doc := "# Performance\n\nprose before\n\n" + beginMark + "old table\n" + endMark + "\nprose after\n"
	got := splice(doc, "new table\n")
	want := "# Performance\n\nprose before\n\n" + beginMark + "new table\n" + endMark + "\nprose after\n"
	if got != want {
		t.Errorf("splice:\n%s\nwant:\n%s", got, want)
	}
	for _, doc := range []string{"", "no markers\n", endMark + beginMark} {
		got := splice(doc, "table\n")
		if !strings.HasPrefix(got, "# Performance\n") || !strings.Contains(got, beginMark+"table\n"+endMark) {
			t.Errorf("splice(%q) = %q: want a new document holding the section", doc, got)
		}
	}
}

func TestReadRSS(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		want          int64
		fails         bool
	}{
		{"plain", "10332\n", 10332, false},
		{"after the exit status note", "Command exited with non-zero status 1\n4100\n", 4100, false},
		{"empty", "", 0, true},
		{"not a number", "Command terminated by signal 9\n", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
			if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := readRSS(p)
			if (err != nil) != tc.fails || got != tc.want {
				t.Errorf("readRSS(%q) = %d, %v; want %d, failure %v", tc.content, got, err, tc.want, tc.fails)
			}
		})
	}
}

func TestLabels(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{count(7), "7"},
		{count(1000), "1,000"},
		{count(10000), "10,000"},
		{count(1234567), "1,234,567"},
		{mb(1 << 30), "1 GiB"},
		{mb(150 << 20), "150 MiB"},
		{formatRate(12345.6, "steps/s"), "12346 steps/s"},
		{formatRate(47.25, "MB/s"), "47.2 MB/s"},
		{formatRate(0.5, "MB/s"), "0.50 MB/s"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestTargets(t *testing.T) {
	w := workload{name: "w", cmds: []command{{label: "ctx x"}, {label: "peer", peer: "p"}}}
	med := []sample{{wall: 12 * time.Millisecond}, {wall: 100 * time.Millisecond}}
	for _, tc := range []struct {
		t    target
		want string
	}{
		{target{cmd: 0, peer: 1, max: 0.15}, "met"},
		{target{cmd: 0, peer: 1, max: 0.1}, "MISSED"},
		{target{cmd: 0, peer: 1, max: 0.12}, "met"},
		{target{cmd: 0, peer: 1, max: 0.12, below: true}, "MISSED"},
	} {
		if got := checkTarget(w, tc.t, med); !strings.HasSuffix(got, " "+tc.want) {
			t.Errorf("checkTarget(%+v) = %q, want it to end in %q", tc.t, got, tc.want)
		}
	}
}

func TestRunPlan(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		p     runPlan
		round time.Duration
		want  int
	}{
		{runPlan{min: 3, max: 5, budget: 75 * s}, 2 * s, 5},
		{runPlan{min: 3, max: 5, budget: 75 * s}, 15 * s, 5},
		{runPlan{min: 3, max: 5, budget: 75 * s}, 20 * s, 3},
		{runPlan{min: 3, max: 5, budget: 75 * s}, 5 * time.Minute, 3},
		{runPlan{min: 7, max: 7}, 5 * time.Minute, 7},
		{runPlan{min: 2, max: 2}, 0, 2},
	} {
		if got := tc.p.count(tc.round); got != tc.want {
			t.Errorf("%+v.count(%s) = %d, want %d", tc.p, tc.round, got, tc.want)
		}
	}
}

func TestIssueTargets(t *testing.T) {
	w := workload{name: "w", cmds: []command{{label: "ctx a"}, {label: "peer", peer: "p"}}}
	med := []sample{{wall: time.Second, rss: 70 << 10}, {wall: time.Second}}
	for _, tc := range []struct {
		name string
		t    target
		want string
	}{
		{"rate met", target{cmd: 0, minRate: 150, rateOf: func() float64 { return 200 }, unit: "MB/s of log"}, "met"},
		{"rate missed", target{cmd: 0, minRate: 150, rateOf: func() float64 { return 100 }, unit: "MB/s of log"}, "MISSED"},
		{"rss missed", target{cmd: 0, maxRSS: rssLimit}, "MISSED"},
		{"ratio met", target{cmd: 0, peer: 1, max: 1}, "met"},
	} {
		if got := checkTarget(w, tc.t, med); !strings.HasSuffix(got, " "+tc.want) {
			t.Errorf("%s: %q, want it to end in %s", tc.name, got, tc.want)
		}
	}
	lines := flatChecks(map[string][]flatRSS{"m": {
		{label: "a", rss: 100}, {label: "b", rss: 100}, {label: "a", rss: 120}, {label: "b", rss: 200},
	}})
	if len(lines) != 2 || !strings.HasSuffix(lines[0], " met") || !strings.HasSuffix(lines[1], " MISSED") {
		t.Errorf("flatChecks: %q, want a met (1.2x) and b MISSED (2x)", lines)
	}
}
