package ctxcmd

// verb is one verb of this project and the line 'ctx help' shows for it.
type verb struct {
	name    string
	summary string
}

// verbs returns the verbs of this project in the order 'ctx help' lists
// them: the order of a run's life, from store to sharing.
func verbs() []verb {
	return []verb{
		{"init", "create an empty store"},
		{"pack", "store an execution log as a pack"},
		{"show", "show a pack"},
		{"log", "list packs, newest first"},
		{"diff", "report the drift between two runs"},
		{"suite", "store and compare the runs of an evaluation, task by task"},
		{"replay", "re-execute a pack step by step"},
		{"verify", "check an artifact against the pack that made it"},
		{"key", "make a signing key pair"},
		{"attest", "sign a pack's provenance as an in-toto attestation"},
		{"fork", "start a draft from a pack"},
		{"cat", "print an object or a part of a pack"},
		{"fsck", "check the store"},
		{"tag", "list, set and delete tags"},
		{"rm", "remove packs from the index"},
		{"gc", "delete the objects nothing keeps"},
		{"redact", "copy a pack without its secrets"},
		{"checkout", "write a pack's files into a directory"},
		{"export", "write packs as a tar stream"},
		{"import", "read packs from a tar stream"},
		{"push", "send packs to a registry"},
		{"pull", "fetch packs from a registry"},
		{"convert", "turn an agent transcript into an execution log"},
		{"record", "run a traced agent, or relay a tool server, and pack its runs"},
		{"capture", "pack the sessions coding agents keep in their own stores"},
		{"restore", "write a pack into a coding agent's store, to resume it there"},
		{"serve", "answer a client from a recorded tool server session"},
		{"completion", "print a shell completion script"},
	}
}

// summary returns the summary of one of our verbs, or "" for any other name.
func summary(name string) string {
	for _, v := range verbs() {
		if v.name == name {
			return v.summary
		}
	}
	return ""
}

// builtin reports whether name is handled by ctx itself, never by a
// ctx-NAME program.
func builtin(name string) bool {
	return name == "help" || name == "version"
}
