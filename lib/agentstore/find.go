package agentstore

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
)

// Session is one session in an agent's store.
type Session struct {
	Agent string
	ID    string
	// Root is the folder the files are named from; Files are
	// slash-separated names relative to it, the session file first.
	Root  string
	Files []string
	// Cwd is the session's working directory where the store says it
	// without reading the session (Codex's session_meta, Gemini's
	// project registry); "" otherwise.
	Cwd string
}

// Path is the session file's path.
func (s Session) Path() string { return filepath.Join(s.Root, filepath.FromSlash(s.Files[0])) }

// Find lists agent's sessions of the working directory dir (as
// WorkingDir gives it), or of every project when dir is "", in the store
// the environment names, sorted by id; looked says where it looked. A
// store or folder that does not exist holds no session.
func Find(agent string, env Getenv, dir string) (sessions []Session, looked []string, err error) {
	base, err := Dir(agent, env)
	if err != nil {
		return nil, nil, err
	}
	switch agent {
	case ClaudeCode:
		projects := filepath.Join(base, "projects")
		var folders []string
		if dir != "" {
			folders = []string{filepath.Join(projects, ClaudeFolder(env, base, dir))}
		} else {
			looked = []string{projects}
			ents, err := os.ReadDir(projects)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, looked, err
			}
			for _, e := range ents {
				if e.IsDir() {
					folders = append(folders, filepath.Join(projects, e.Name()))
				}
			}
		}
		for _, f := range folders {
			if dir != "" {
				looked = append(looked, f)
			}
			s, err := claudeSessions(f)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, looked, err
			}
			sessions = append(sessions, s...)
		}
	case Codex:
		looked = []string{filepath.Join(base, "sessions")}
		sessions, err = codexSessions(base, dir)
	case Gemini:
		var slugs []string
		cwds := map[string]string{}
		p, perr := ReadGeminiProjects(base)
		if perr != nil {
			return nil, []string{GeminiProjectsFile(base)}, perr
		}
		for d, s := range p.Projects {
			cwds[s] = d
		}
		if dir != "" {
			// The project's slug, and the folder Gemini CLI named by
			// the project's hash before it had slugs.
			slugs = []string{GeminiProjectHash(dir)}
			cwds[slugs[0]] = dir
			if isDir(GeminiChats(base, slugs[0])) {
				looked = append(looked, GeminiChats(base, slugs[0]))
			}
			if s, ok := p.Projects[dir]; ok && ValidGeminiSlug(s) {
				slugs = append(slugs, s)
				looked = append(looked, GeminiChats(base, s))
			} else {
				looked = append(looked, GeminiProjectsFile(base)+" (no project for this directory)")
			}
		} else {
			looked = []string{filepath.Join(base, "tmp")}
		}
		sessions, err = geminiSessions(base, slugs, cwds)
	}
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	sort.SliceStable(sessions, func(i, j int) bool { return sessions[i].ID < sessions[j].ID })
	return sessions, looked, err
}
