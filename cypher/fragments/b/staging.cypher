// fragment: staging
// The property a re-embedding fills when the store's vectors are in slot b: slot a's.
__node__.embedding
