package rest

import "sync"

// bounded is a map whose keys clients choose (statement texts, request
// shapes), so it empties itself when full rather than grow without bound;
// the cost of forgetting is one slower request per key, once. A schema
// reload clears it.
type bounded[K comparable, V any] struct {
	mu sync.RWMutex
	m  map[K]V
}

const maxBounded = 1024

func (b *bounded[K, V]) get(k K) (V, bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	v, ok := b.m[k]
	return v, ok
}

func (b *bounded[K, V]) put(k K, v V) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil || len(b.m) >= maxBounded {
		b.m = map[K]V{}
	}
	b.m[k] = v
}

func (b *bounded[K, V]) clear() {
	b.mu.Lock()
	b.m = nil
	b.mu.Unlock()
}
