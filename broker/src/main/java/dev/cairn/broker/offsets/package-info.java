/**
 * Committed consumer offsets: the {@link dev.cairn.broker.offsets.OffsetStore} interface, the RocksDB-backed
 * store of a broker data directory, and an in-memory store for tests and the Maelstrom node. Each commit is
 * stored atomically with its partition group's applied Raft index, so Raft replays are idempotent.
 */
package dev.cairn.broker.offsets;
