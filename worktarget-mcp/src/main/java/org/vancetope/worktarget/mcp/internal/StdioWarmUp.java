package org.vancetope.worktarget.mcp.internal;

import io.modelcontextprotocol.json.McpJsonMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.core.internal.path.Reserved;

/**
 * Primes the JVM on the stdio call path, in the background, while the client is idle: a private copy of
 * the server (its own dispatcher on a new temporary directory, never the user's files) is driven over an
 * in-memory line channel through the same transport, SDK session, tool calls, dispatcher, file engine and
 * JSON rendering as a client's calls: {@value #CALLS} calls of the common file tools by default. The JVM
 * interprets a method until it ran a few hundred times and compiles it fully only after some thousands: without
 * this, a client's first hundreds of small calls run interpreted and cost several times what they cost later.
 *
 * <p>Before each call it waits until the real client has no request unanswered ({@link Idle}), so a
 * client's call never competes with more than the one warm-up call already running. Writes and edits (which
 * force the file to disk) are one round in four. It stops after its
 * calls, or at {@link #close()}; the temporary directory is deleted either way.
 */
public final class StdioWarmUp implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StdioWarmUp.class);
    /** The calls it runs by default. */
    public static final int CALLS = 2400;
    private static final byte[] END = new byte[0];

    /** Waits until the real client has no request unanswered. */
    @FunctionalInterface
    public interface Idle {
        /**
         * Returns when no request of the real client is unanswered.
         *
         * @throws InterruptedException when interrupted
         */
        void await() throws InterruptedException;
    }

    /** The private server's side: what to run on the directory, closed at the end. */
    public interface Target extends AutoCloseable {
        /**
         * Serves the private server on these streams.
         *
         * @param in the warm-up's requests
         * @param out the private server's messages
         */
        void serve(InputStream in, OutputStream out);

        @Override
        void close();
    }

    private final McpJsonMapper json;
    private final Idle clientIdle;
    private final Thread thread;
    private final BlockingQueue<byte[]> requests = new LinkedBlockingQueue<>();
    private final BlockingQueue<byte[]> responses = new LinkedBlockingQueue<>();
    private final int calls;
    private volatile boolean stopped;
    private volatile int done;
    private volatile int failed;
    private volatile Path directory;

    private StdioWarmUp(McpJsonMapper json, Idle clientIdle, Function<Path, Target> target, int calls) {
        this.json = json;
        this.clientIdle = clientIdle;
        this.calls = calls;
        this.thread = new Thread(() -> run(target), "worktarget-mcp-warm-up");
        this.thread.setDaemon(true);
    }

    /**
     * Starts warming up in a background thread.
     *
     * @param json the SDK's mapper
     * @param clientIdle waits until the real client has no request unanswered
     * @param target builds the private server on the temporary directory it is given
     * @param calls how many tool calls to run
     * @return the running warm-up
     */
    public static StdioWarmUp start(McpJsonMapper json, Idle clientIdle, Function<Path, Target> target, int calls) {
        StdioWarmUp w = new StdioWarmUp(json, clientIdle, target, calls);
        w.thread.start();
        return w;
    }

    /**
     * The calls run so far.
     *
     * @return the count
     */
    public int callsDone() {
        return done;
    }

    /**
     * The calls run so far that failed though they should not have (all but the deliberate path escape): a
     * warm-up whose calls fail warms the error path only.
     *
     * @return the count
     */
    public int callsFailedUnexpectedly() {
        return failed;
    }

    /**
     * The temporary directory it works in (deleted when it ends).
     *
     * @return the directory, null before it was made
     */
    public Path directory() {
        return directory;
    }

    /**
     * Whether the warm-up ended (its calls are done or it was closed) and its directory is deleted.
     *
     * @return true when it ended
     */
    public boolean ended() {
        return !thread.isAlive();
    }

    /** The start of a warm-up directory's name; its process's owner name ({@link Reserved#owner()}) and a dash follow. */
    public static final String DIR_PREFIX = "worktarget-mcp-warm-up-";

    private void run(Function<Path, Target> factory) {
        long t0 = System.nanoTime();
        Path dir = null;
        try {
            Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
            deleteLeftovers(tmp);
            dir = Files.createTempDirectory(tmp, DIR_PREFIX + Reserved.owner() + "-");
            directory = dir;
            prepare(dir);
            try (Target target = factory.apply(dir)) {
                target.serve(new LineInput(requests), new LineOutput(responses));
                if (call(Map.of("protocolVersion", "2025-06-18", "capabilities", Map.of(),
                        "clientInfo", Map.of("name", "worktarget-warm-up", "version", "1")), "initialize")) {
                    failed++;
                }
                notification("notifications/initialized");
                if (call(Map.of(), "tools/list")) {
                    failed++;
                }
                List<Call> reads = reads();
                List<Call> writes = writes();
                for (int round = 0; done < calls && !stopped; round++) {
                    for (Call c : round % 4 == 0 ? writes : reads) {
                        clientIdle.await();
                        if (stopped || done >= calls) {
                            break;
                        }
                        if (call(c.params(), "tools/call") != c.fails()) {
                            failed++;
                        }
                        done++;
                    }
                }
                requests.add(END);
            }
            LOG.debug("The MCP warm-up ran {} calls in {} ms", done, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
        } catch (InterruptedException e) {
            LOG.debug("The MCP warm-up was stopped after {} calls", done);
            Thread.currentThread().interrupt();
        } catch (IOException | RuntimeException e) {
            LOG.debug("The MCP warm-up stopped after {} calls: {}", done, e.toString());
        } finally {
            if (dir != null) {
                delete(dir);
            }
        }
    }

    /** A tool call and whether it fails (with an {@code isError} result). */
    private record Call(Map<String, Object> params, boolean fails) {
    }

    /** The calls of a reading round: the small reads, listings and searches clients make most. */
    private static List<Call> reads() {
        List<Call> c = new ArrayList<>();
        c.add(tool("file_read", Map.of("path", "small.txt")));
        c.add(tool("file_head_tail", Map.of("path", "app.log", "head", 100)));
        c.add(tool("file_list", Map.of("path", "src")));
        c.add(tool("file_read", Map.of("path", "src/a/f1.txt")));
        c.add(tool("file_head_tail", Map.of("path", "app.log", "tail", 100)));
        c.add(tool("file_stat", Map.of("path", "small.txt")));
        c.add(tool("file_find", Map.of("path", "src", "pathGlob", "**/*3*.txt")));
        c.add(tool("file_grep", Map.of("path", "src", "pattern", "line 7")));
        c.add(new Call(tool("file_read", Map.of("path", "../outside.txt")).params(), true)); // path_escape
        c.add(tool("file_list", Map.of("path", ".")));
        c.add(tool("work_target_get", Map.of()));
        return c;
    }

    /** The calls of a writing round: the reads, an edit and its undoing, and a write. */
    private static List<Call> writes() {
        List<Call> c = new ArrayList<>(reads());
        c.add(tool("file_edit", Map.of("path", "edit.txt", "oldText", "beta", "newText", "BETA")));
        c.add(tool("file_edit", Map.of("path", "edit.txt", "oldText", "BETA", "newText", "beta")));
        c.add(tool("file_write", Map.of("path", "out.txt", "content", "x".repeat(4096))));
        return c;
    }

    private static Call tool(String name, Map<String, Object> arguments) {
        return new Call(Map.of("name", name, "arguments", arguments), false);
    }

    private static void prepare(Path dir) throws IOException {
        String line = "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghij\n";
        Files.writeString(dir.resolve("small.txt"), line.repeat(4096 / line.length()));
        Files.writeString(dir.resolve("edit.txt"), "alpha\nbeta\ngamma\n" + line.repeat(60));
        StringBuilder log = new StringBuilder();
        for (int i = 0; i < 20_000; i++) {
            log.append("2026-01-01T00:00:00Z INFO request ").append(i).append(" served\n");
        }
        Files.writeString(dir.resolve("app.log"), log);
        for (String sub : List.of("a", "b", "c")) {
            Path d = Files.createDirectories(dir.resolve("src").resolve(sub));
            for (int i = 0; i < 40; i++) {
                Files.writeString(d.resolve("f" + i + ".txt"), "line " + i + "\n" + line.repeat(8));
            }
        }
    }

    private long nextId;

    /** Sends a request and waits for its response; true when it is an error. */
    private boolean call(Map<String, Object> params, String method) throws IOException, InterruptedException {
        long id = ++nextId;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("jsonrpc", "2.0");
        m.put("id", id);
        m.put("method", method);
        m.put("params", params);
        requests.add(json.writeValueAsBytes(m));
        // the private server answers every request; a notification of its own may come first
        while (!stopped) {
            byte[] r = responses.poll(100, TimeUnit.MILLISECONDS);
            if (r == null) {
                continue;
            }
            Map<?, ?> response = json.readValue(r, Map.class);
            if (response.get("id") instanceof Number n && n.longValue() == id) {
                return response.get("error") != null
                        || response.get("result") instanceof Map<?, ?> result && Boolean.TRUE.equals(result.get("isError"));
            }
        }
        return false;
    }

    private void notification(String method) throws IOException {
        requests.add(json.writeValueAsBytes(Map.of("jsonrpc", "2.0", "method", method)));
    }

    /** Stops after the call that runs now, and waits (up to 5 s) until the directory is deleted. */
    @Override
    public void close() {
        stopped = true;
        requests.add(END);
        thread.interrupt();
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Deletes the directories of warm-ups whose process is gone: one that was killed (SIGKILL) while it ran
     * could not delete its own. A directory whose process still runs, or whose name holds no owner of this
     * host ({@link Reserved#owner()}), is left alone.
     *
     * @param tmp the temporary directory the warm-ups make theirs in
     * @return how many were deleted
     */
    public static int deleteLeftovers(Path tmp) {
        int deleted = 0;
        try (Stream<Path> s = Files.list(tmp)) {
            for (Path d : s.toList()) {
                String name = d.getFileName().toString();
                if (!name.startsWith(DIR_PREFIX)) {
                    continue;
                }
                int dash = name.indexOf('-', DIR_PREFIX.length());
                if (dash > 0 && Reserved.isStaleOwner(name.substring(DIR_PREFIX.length(), dash))
                        && Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)) {
                    delete(d);
                    deleted++;
                }
            }
        } catch (IOException e) {
            LOG.debug("Could not look for the directories of ended MCP warm-ups in {}: {}", tmp, e.toString());
        }
        return deleted;
    }

    private static void delete(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            LOG.debug("Could not delete the MCP warm-up directory {}: {}", dir, e.toString());
        }
    }

    /** Lines from a queue, each with its newline; {@link #END} ends the input. */
    private static final class LineInput extends InputStream {
        private final BlockingQueue<byte[]> lines;
        private byte[] current = new byte[0];
        private int pos;
        private boolean ended;

        LineInput(BlockingQueue<byte[]> lines) {
            this.lines = lines;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            while (pos >= current.length) {
                if (ended) {
                    return -1;
                }
                byte[] next;
                try {
                    next = lines.take();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
                if (next == END) {
                    ended = true;
                    lines.add(END); // for a later read
                    return -1;
                }
                current = new byte[next.length + 1];
                System.arraycopy(next, 0, current, 0, next.length);
                current[next.length] = '\n';
                pos = 0;
            }
            int n = Math.min(len, current.length - pos);
            System.arraycopy(current, pos, b, off, n);
            pos += n;
            return n;
        }
    }

    /** Collects what is written into lines on a queue. */
    private static final class LineOutput extends OutputStream {
        private final BlockingQueue<byte[]> lines;
        private final java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();

        LineOutput(BlockingQueue<byte[]> lines) {
            this.lines = lines;
        }

        @Override
        public synchronized void write(int b) {
            if (b == '\n') {
                lines.add(line.toByteArray());
                line.reset();
            } else {
                line.write(b);
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            int start = off;
            for (int i = off; i < off + len; i++) {
                if (b[i] == '\n') {
                    line.write(b, start, i - start);
                    lines.add(line.toByteArray());
                    line.reset();
                    start = i + 1;
                }
            }
            line.write(b, start, off + len - start);
        }
    }
}
