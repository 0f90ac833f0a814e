package org.vancetope.worktarget.mcp.internal;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The tool calls that run now, by request key, so that {@code notifications/cancelled} can interrupt the
 * thread that runs one (the dispatcher then cancels the call: a remote peer gets {@code client_tool_cancel},
 * an {@code exec_run} kills the job it started). A cancel for a call that is not running (finished, or not
 * started yet) is ignored, as MCP allows. Thread-safe.
 */
public final class CallRegistry {
    /** The {@code _meta} key the transports put the request key under in a {@code tools/call} request. */
    public static final String REQUEST_KEY = "org.vancetope.worktarget/requestKey";

    private final Map<String, Thread> running = new HashMap<>();
    private final Set<String> cancelled = new HashSet<>();
    private final Set<String> stopped = new HashSet<>();

    /**
     * The key of a request: its session and JSON-RPC id.
     *
     * @param sessionId the MCP session, or null over stdio (one session)
     * @param requestId the JSON-RPC id
     * @return the key
     */
    public static String key(String sessionId, Object requestId) {
        // JSON-RPC ids 1 and "1" are different requests: a string id is kept in quotes
        String id = requestId instanceof String s ? '"' + s + '"' : String.valueOf(requestId);
        return (sessionId == null ? "" : sessionId) + "#" + id;
    }

    /**
     * The current thread runs the call with this key, unless a call with the same key runs already (a client
     * that used one request id twice): then nothing is recorded, and the caller must refuse the request and
     * not call {@link #finished}, which would take the running call's entry away.
     *
     * @param key the key
     * @return whether the call was recorded
     */
    public synchronized boolean started(String key) {
        return running.putIfAbsent(key, Thread.currentThread()) == null;
    }

    /**
     * The call with this key ended; clears an interrupt a cancel left on the current thread, which goes
     * back to its pool.
     *
     * @param key the key
     */
    public void finished(String key) {
        synchronized (this) {
            running.remove(key);
            cancelled.remove(key);
            stopped.remove(key);
        }
        // a cancel interrupts only while the call is registered: what is left is cleared once
        Thread.interrupted();
    }

    /**
     * Cancels the call with this key, if it is running.
     *
     * @param key the key
     * @return whether a running call was interrupted
     */
    public synchronized boolean cancel(String key) {
        Thread t = running.get(key);
        if (t == null) {
            return false;
        }
        cancelled.add(key);
        t.interrupt();
        return true;
    }

    /** Cancels every running call (the client went away). */
    public synchronized void cancelAll() {
        cancelled.addAll(running.keySet());
        running.values().forEach(Thread::interrupt);
    }

    /**
     * The server shuts down: interrupts every running call. Unlike a cancel, what an interrupted tool still
     * answers goes to the client (an upload cut off answers with its resume id), and a tool that fails then
     * reports the shutdown ({@link #stopped}).
     */
    public synchronized void stopAll() {
        stopped.addAll(running.keySet());
        running.values().forEach(Thread::interrupt);
    }

    /**
     * Whether the running call with this key was interrupted by {@link #stopAll}.
     *
     * @param key the key
     * @return true once {@link #stopAll} interrupted it, until it finished
     */
    public synchronized boolean stopped(String key) {
        return stopped.contains(key);
    }

    /**
     * Whether the running call with this key was cancelled: however the interrupted tool failed (a read
     * the interrupt broke fails as {@code internal}), the call then reports {@code cancelled}.
     *
     * @param key the key
     * @return true once {@link #cancel} or {@link #cancelAll} interrupted it, until it finished
     */
    public synchronized boolean cancelled(String key) {
        return cancelled.contains(key);
    }

    /**
     * How many calls run now.
     *
     * @return the count
     */
    public synchronized int size() {
        return running.size();
    }
}
