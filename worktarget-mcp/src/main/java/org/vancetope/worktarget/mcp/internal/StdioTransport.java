package org.vancetope.worktarget.mcp.internal;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransport;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * The stdio transport: newline-delimited JSON-RPC on an input and an output stream, one session.
 *
 * <p>It is built for the latency of one call. The thread that reads a request runs it (the SDK server is
 * built with immediate execution) and writes the response itself, under a lock, with one flush; before it
 * runs the request it hands the reading to another thread of its pool, so that there is always a reader
 * (a {@code notifications/cancelled} is acted on as soon as it arrives, however long a call runs) and
 * requests run concurrently. A call thus waits for no thread but the one its bytes woke up; the SDK's own
 * stdio transport passes every call through three (a reader, a worker and a writer), which on a loaded
 * machine costs milliseconds of scheduling a call.
 *
 * <p>Each line is parsed once: a {@code tools/call} request is tagged with its key for the
 * {@link CallRegistry}, a cancel notification cancels the call it names (the SDK has no handler for it).
 * When the input ends, the running calls are cancelled and {@link #ended()} opens once every request read
 * was answered (at most 30 s later).
 *
 * <p>At most {@code maxCalls} requests run at a time: one more is answered at once, by the reading thread,
 * with a JSON-RPC error (code -32000) that says to send it again later, so that a client that floods the
 * server gets errors instead of a thread per line.
 */
public final class StdioTransport implements McpServerTransportProvider {
    private static final Logger LOG = LoggerFactory.getLogger(StdioTransport.class);
    /** The longest line read; a longer one is answered with a parse error and skipped. */
    static final int MAX_LINE = 64 * 1024 * 1024;

    private final McpJsonMapper json;
    /** Whether an initialize request was read; set and read by the one thread reading at a time. */
    private volatile boolean initializing;
    /** Whether the initialized notification followed it: from then on every request goes to the SDK. */
    private volatile boolean ready;
    private final InputStream in;
    private final OutputStream out;
    private final CallRegistry calls;
    private final int maxCalls;
    private final Semaphore callSlots;
    private final ExecutorService threads;
    private final CountDownLatch ended = new CountDownLatch(1);
    private final AtomicBoolean closing = new AtomicBoolean();
    private final AtomicInteger threadCount = new AtomicInteger();
    private final Object answeredLock = new Object();
    private int unanswered;
    private volatile McpServerSession session;
    // read only by the thread that reads now (handed on through the executor, which orders the accesses)
    private final byte[] buf = new byte[64 * 1024];
    private int bufPos;
    private int bufEnd;

    /**
     * A transport on these streams.
     *
     * @param json the SDK's mapper
     * @param in the client's messages
     * @param out where the messages to the client go (nothing else may write there)
     * @param calls the running calls
     * @param maxCalls how many requests may run at a time, at least 1; one more is refused at once
     */
    public StdioTransport(McpJsonMapper json, InputStream in, OutputStream out, CallRegistry calls, int maxCalls) {
        if (maxCalls < 1) {
            throw new IllegalArgumentException("maxCalls must be at least 1, got " + maxCalls);
        }
        this.json = json;
        this.in = in;
        this.out = out;
        this.calls = calls;
        this.maxCalls = maxCalls;
        this.callSlots = new Semaphore(maxCalls);
        this.threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "worktarget-mcp-stdio-" + threadCount.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Opens when the input ended (the client closed stdin) and every request read was answered, or reading
     * failed.
     *
     * @return the latch
     */
    public CountDownLatch ended() {
        return ended;
    }

    @Override
    public void setSessionFactory(McpServerSession.Factory sessionFactory) {
        session = sessionFactory.create(new SessionTransport());
        threads.execute(this::read);
    }

    /** Reads messages until a request comes: hands the reading on, then runs the request on this thread. */
    private void read() {
        while (true) {
            byte[] line;
            try {
                line = readLine();
            } catch (LineTooLongException e) {
                LOG.warn("{}", e.getMessage());
                write(Inbound.error(null, McpSchema.ErrorCodes.PARSE_ERROR, e.getMessage()));
                continue;
            } catch (IOException e) {
                if (!closing.get()) {
                    LOG.warn("Reading the MCP client's input failed: {}", e.toString());
                }
                ended.countDown();
                return;
            }
            if (line == null) {
                drain();
                return;
            }
            McpSchema.JSONRPCMessage message;
            try {
                message = parse(line);
            } catch (RuntimeException e) {
                LOG.warn("Could not answer a line from the MCP client: {}", e.toString());
                continue;
            }
            McpSchema.JSONRPCResponse refused = message instanceof McpSchema.JSONRPCRequest q ? Inbound.refusal(q) : null;
            if (refused == null && message instanceof McpSchema.JSONRPCRequest q && !ready) {
                refused = beforeReady(q);
            }
            if (refused != null) {
                write(refused);
                continue;
            }
            if (message instanceof McpSchema.JSONRPCNotification n
                    && McpSchema.METHOD_NOTIFICATION_INITIALIZED.equals(n.method()) && initializing) {
                ready = true;
            }
            if (message instanceof McpSchema.JSONRPCRequest r) {
                if (!callSlots.tryAcquire()) {
                    write(Inbound.busy(r.id(), maxCalls));
                    continue;
                }
                synchronized (answeredLock) {
                    unanswered++;
                }
                try {
                    threads.execute(this::read);
                } catch (RejectedExecutionException e) {
                    callSlots.release();
                    answered();
                    return; // closing
                }
                run(r);
                return;
            }
            try {
                if (message instanceof McpSchema.JSONRPCNotification n && Inbound.CANCELLED.equals(n.method())) {
                    Inbound.cancel(n.method(), n.params(), null, calls);
                } else if (message != null) {
                    session.handle(message).subscribe(null, e -> LOG.debug("An MCP message failed: {}", e.toString()));
                }
            } catch (RuntimeException e) {
                LOG.warn("An MCP message failed: {}", e.toString());
            }
        }
    }

    /**
     * The answer to a request read before the session is ready (its initialize request read, then the
     * initialized notification), which the SDK would hold until then, or for ever: a ping is answered, any
     * other request but initialize refused. Null for initialize, which is passed on.
     */
    private McpSchema.JSONRPCResponse beforeReady(McpSchema.JSONRPCRequest q) {
        if (McpSchema.METHOD_INITIALIZE.equals(q.method())) {
            initializing = true;
            return null;
        }
        if (McpSchema.METHOD_PING.equals(q.method())) {
            return new McpSchema.JSONRPCResponse(McpSchema.JSONRPC_VERSION, q.id(), Map.of(), null);
        }
        return Inbound.notInitialized(q.id(), q.method());
    }

    private void run(McpSchema.JSONRPCRequest r) {
        McpSchema.JSONRPCRequest tagged = new McpSchema.JSONRPCRequest(r.jsonrpc(), r.method(), r.id(),
                Inbound.tag(r.method(), r.id(), r.params(), null));
        try {
            // the server runs its handlers at once: the call runs here, its response is written here
            session.handle(tagged).block();
        } catch (RuntimeException e) {
            LOG.debug("The MCP request {} failed: {}", r.method(), e.toString());
        } finally {
            callSlots.release();
            answered();
        }
    }

    private McpSchema.JSONRPCMessage parse(byte[] line) {
        String text = new String(line, StandardCharsets.UTF_8).strip();
        if (text.isEmpty()) {
            return null;
        }
        try {
            return Inbound.message(json, text);
        } catch (IOException | IllegalArgumentException e) {
            LOG.debug("A line from the MCP client is not a JSON-RPC message: {}", Inbound.reason(e));
            write(Inbound.unreadableError(json, "The line", text, e));
            return null;
        }
    }

    /** The next line without its newline, or null at the end of the input. */
    private byte[] readLine() throws IOException {
        ByteArrayOutputStream line = null;
        boolean tooLong = false;
        while (true) {
            if (bufPos >= bufEnd) {
                int n = in.read(buf, 0, buf.length);
                if (n < 0) {
                    if (line == null || line.size() == 0) {
                        return null;
                    }
                    return line.toByteArray(); // a last line without its newline
                }
                bufPos = 0;
                bufEnd = n;
            }
            int nl = -1;
            for (int i = bufPos; i < bufEnd; i++) {
                if (buf[i] == '\n') {
                    nl = i;
                    break;
                }
            }
            int end = nl < 0 ? bufEnd : nl;
            if (line == null && nl >= 0) {
                byte[] one = Arrays.copyOfRange(buf, bufPos, end);
                bufPos = nl + 1;
                return one;
            }
            if (line == null) {
                line = new ByteArrayOutputStream();
            }
            if (!tooLong) {
                if ((long) line.size() + (end - bufPos) > MAX_LINE) {
                    tooLong = true;
                    line.reset();
                } else {
                    line.write(buf, bufPos, end - bufPos);
                }
            }
            bufPos = nl < 0 ? bufEnd : nl + 1;
            if (nl >= 0) {
                if (tooLong) {
                    throw new LineTooLongException("A message from the MCP client is longer than " + MAX_LINE
                            + " bytes; it was skipped. Send smaller messages.");
                }
                return line.toByteArray();
            }
        }
    }

    /** A line over {@link #MAX_LINE}; it was skipped. */
    private static final class LineTooLongException extends IOException {
        private static final long serialVersionUID = 1L;

        LineTooLongException(String message) {
            super(message);
        }
    }

    /**
     * Writes one message and its newline with one write, and flushes: {@code System.out} passes each write on
     * at once (a buffer of 128 bytes, flushed on every write), so a newline written on its own cost a second
     * system call, and woke the client a second time for a line it could not use before.
     */
    private void write(Object message) {
        byte[] line;
        try {
            byte[] bytes = json.writeValueAsBytes(message);
            line = Arrays.copyOf(bytes, bytes.length + 1);
            line[bytes.length] = '\n';
        } catch (IOException e) {
            throw new IllegalStateException("Cannot write an MCP message: " + e.getMessage(), e);
        }
        synchronized (out) {
            try {
                out.write(line);
                out.flush();
            } catch (IOException e) {
                if (!closing.get()) {
                    LOG.warn("Writing to the MCP client failed: {}", e.toString());
                }
            }
        }
    }

    /**
     * Returns when no request read is unanswered (at once when none is).
     *
     * @throws InterruptedException when interrupted while waiting
     */
    public void awaitIdle() throws InterruptedException {
        synchronized (answeredLock) {
            while (unanswered > 0) {
                answeredLock.wait();
            }
        }
    }

    private void answered() {
        synchronized (answeredLock) {
            unanswered--;
            answeredLock.notifyAll();
        }
    }

    /** The input ended: cancel the running calls and wait (up to 30 s) until every request was answered. */
    private void drain() {
        calls.cancelAll();
        try {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            synchronized (answeredLock) {
                while (unanswered > 0) {
                    long left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime());
                    if (left <= 0) {
                        LOG.warn("Some MCP requests were still unanswered 30 s after the client closed its input");
                        break;
                    }
                    answeredLock.wait(left);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            ended.countDown();
        }
    }

    @Override
    public Mono<Void> notifyClients(String method, Object params) {
        McpServerSession s = session;
        return s == null ? Mono.empty() : s.sendNotification(method, params);
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.fromRunnable(this::close);
    }

    /** Stops: no more threads start; the input is closed so that the reader ends. */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        threads.shutdown();
        if (ended.getCount() > 0) {
            // the client has not closed its input: close it, so that the reader ends
            try {
                in.close();
            } catch (IOException e) {
                LOG.debug("Closing the MCP input failed: {}", e.toString());
            }
            ended.countDown();
        }
    }

    /** The session's side: messages go out through {@link #write}. */
    private final class SessionTransport implements McpServerTransport {
        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
            return Mono.fromRunnable(() -> write(message));
        }

        @Override
        public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
            return json.convertValue(data, typeRef);
        }

        @Override
        public Mono<Void> closeGracefully() {
            return Mono.empty();
        }

        @Override
        public void close() {
            // the provider owns the streams
        }
    }
}
