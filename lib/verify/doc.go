// Package verify ties artifacts back to the packs that produced them:
// provenance sidecars (<artifact>.ctx.json) and the checks of ctx verify.
//
// It must never overwrite a file that is not a ctx sidecar, never vouch for
// an artifact whose bytes differ from the pack's recorded output, and never
// trust a pack whose objects it has not verified.
package verify
