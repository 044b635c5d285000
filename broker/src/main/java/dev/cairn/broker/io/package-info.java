/**
 * File access for the storage engine: the {@link dev.cairn.broker.io.FileIo} interface, its real
 * implementation {@link dev.cairn.broker.io.NioFileIo}, and the {@link dev.cairn.broker.io.StorageException}
 * the broker maps to {@code KAFKA_STORAGE_ERROR}. A fault-injecting in-memory implementation lives in the
 * test sources ({@code SimulatedFileIo}).
 */
package dev.cairn.broker.io;
