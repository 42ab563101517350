// Package verify ties artifacts back to the packs that produced them:
// provenance sidecars (<artifact>.ctx.json), the checks of ctx verify, and
// the walk that finds every sidecar under a directory.
//
// It must never overwrite a file that is not a ctx sidecar, never write
// through a symlink, never report an artifact verified unless its bytes equal
// the pack's recorded output, and never trust a pack whose objects it has not
// rehashed.
package verify
