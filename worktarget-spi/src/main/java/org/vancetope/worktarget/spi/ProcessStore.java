package org.vancetope.worktarget.spi;

import java.util.Optional;

/**
 * The host's process model, as far as WorkTarget needs it: look a process up and update one key of
 * its {@code engineParams}.
 *
 * <p>{@link #putEngineParam} is a <em>field-level</em> update: two concurrent calls for different
 * keys of one process must both survive, and so must a concurrent update of the same key by
 * someone else (last writer wins for that key only). A document store implements it with a
 * {@code $set} on {@code engineParams.<key>}, a relational store with a row per key — never by
 * reading the whole map, changing it and writing it back.
 */
public interface ProcessStore {

    /**
     * Looks a process up.
     *
     * @param processId the id
     * @return a snapshot, or empty when there is no such process
     */
    Optional<ProcessInfo> find(String processId);

    /**
     * Sets one key of a process's engine parameters atomically.
     *
     * @param processId the process
     * @param key the key, e.g. {@code "workTarget"}
     * @param value a JSON-shaped value; {@code null} removes the key
     * @throws java.util.NoSuchElementException when there is no such process
     */
    void putEngineParam(String processId, String key, Object value);
}
