// Package share is what lets packs travel between people and directories:
// the listing of a store's packs from its packs/ index (ctx log), drafts
// forked from a pack (ctx fork), the addresses of a pack's parts (ctx cat)
// and the writing of a pack's files into a directory (ctx checkout).
//
// It must never change a pack or an object, never read every manifest to
// list packs, never let a name from a pack lead outside the directory it is
// written into, and never overwrite a file that differs from what it would
// write unless told to.
package share
