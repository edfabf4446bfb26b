// fragment: vector
// The property holding the vector of a memory __node__ in the store's active slot (slot a;
// fragments/b/ has the second slot's: _base/layout.py).
__node__.embedding
