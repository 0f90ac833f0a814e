package org.vancetope.worktarget.core.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.FileToolSettings;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.testfixtures.Await;

/**
 * Catastrophically backtracking patterns on the real disk: a search stops at its deadline or when its
 * caller gives up, and never holds the threads another caller's search needs.
 */
class FileEngineDeadlineTest {
    /** {@code (a+)+$} on a line of many {@code 'a'} that ends in {@code '!'} backtracks for minutes. */
    private static final String EVIL = "(a+)+$";
    private static final String EVIL_LINES = ("a".repeat(30_000) + "!\n").repeat(50);

    @TempDir
    Path root;
    private ConfinedRoot gate;
    private final ExecutorService callers = Executors.newCachedThreadPool();

    @BeforeEach
    void setUp() throws Exception {
        gate = ConfinedRoot.of(root);
        for (int i = 0; i < 2; i++) {
            Files.createDirectories(root.resolve("evil" + i));
            Files.writeString(root.resolve("evil" + i + "/e.txt"), EVIL_LINES);
        }
        Files.createDirectories(root.resolve("small"));
        for (int i = 0; i < 50; i++) {
            Files.writeString(root.resolve("small/f" + i + ".txt"), "alpha\nbeta needle " + i + "\ngamma\n");
        }
    }

    @AfterEach
    void tearDown() throws Exception {
        callers.shutdownNow();
        assertThat(callers.awaitTermination(60, TimeUnit.SECONDS)).as("every call ended").isTrue();
    }

    private static Map<String, Object> params(Object... kv) {
        Map<String, Object> p = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            p.put((String) kv[i], kv[i + 1]);
        }
        return p;
    }

    private Future<Map<String, Object>> start(FileEngine engine, String op, Map<String, Object> p) {
        return callers.submit(() -> engine.run(op, gate, p).toMap());
    }

    private static ToolException failureWithin(Future<Map<String, Object>> f, long seconds, String what)
            throws Exception {
        try {
            f.get(seconds, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ToolException t) {
                return t;
            }
            throw e;
        } catch (TimeoutException e) {
            throw new AssertionError(what + " did not end within " + seconds + " s", e);
        }
        throw new AssertionError(what + " should have failed");
    }

    /** Threads (other than the test's) that are inside the searcher right now. */
    private static int threadsMatching() {
        int n = 0;
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            for (StackTraceElement f : e.getValue()) {
                if (f.getClassName().endsWith("internal.file.Searcher")) {
                    n++;
                    break;
                }
            }
        }
        return n;
    }

    private static void awaitThreadsMatching(int n) {
        Await.until("the catastrophic searches started matching", () -> threadsMatching() >= n);
    }

    @Test
    void catastrophicPatternFailsWithTimeoutWithinItsDeadline() throws Exception {
        FileEngine engine = new FileEngine(FileToolSettings.builder().searchTimeout(Duration.ofMillis(500)).build());
        ToolException e = failureWithin(start(engine, "file_grep", params("pattern", EVIL, "path", "evil0")), 120,
                "the catastrophic grep");
        assertThat(e.code()).isEqualTo(ErrorCode.TIMEOUT);
        assertThat(e.getMessage()).contains("file_grep stopped at its deadline of 500 ms")
                .contains("FileToolSettings.searchTimeout").contains("'evil0/e.txt'").contains("(a+)+");
        assertThat(threadsMatching()).as("no thread of the call still matches").isZero();
    }

    /** 20,000 edits of a 2 MB file: each reads and copies the whole text, so they take far longer than 1 ms. */
    private static Map<String, Object> manyEditsOfABigFile(Path root) throws Exception {
        StringBuilder text = new StringBuilder();
        List<Map<String, Object>> edits = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            text.append("token_").append(i).append(" and some more text on the line\n");
            edits.add(Map.of("oldText", "token_" + i + " ", "newText", "TOKEN_" + i + " "));
        }
        Files.writeString(root.resolve("big.txt"), text);
        return params("path", "big.txt", "edits", edits);
    }

    @Test
    void manyEditsOfABigFileStopAtTheDeadlineAndLeaveTheFileUnchanged() throws Exception {
        Map<String, Object> p = manyEditsOfABigFile(root);
        String before = Files.readString(root.resolve("big.txt"));
        FileEngine engine = new FileEngine(FileToolSettings.builder().searchTimeout(Duration.ofMillis(1)).build());
        ToolException e = failureWithin(start(engine, "file_edit", p), 120, "the edits");
        assertThat(e.code()).isEqualTo(ErrorCode.TIMEOUT);
        assertThat(e.getMessage()).startsWith("file_edit stopped at its deadline of 1 ms (FileToolSettings.searchTimeout)")
                .contains("of 20000 edits", "the file is unchanged", "Send fewer edits per call");
        assertThat(Files.readString(root.resolve("big.txt"))).isEqualTo(before);
        try (var files = Files.list(root)) {
            assertThat(files.map(f -> f.getFileName().toString())).as("no staging file left")
                    .containsExactlyInAnyOrder("big.txt", "evil0", "evil1", "small");
        }
    }

    @Test
    void cancelledEditsFailCancelledAndLeaveTheFileUnchanged() throws Exception {
        Map<String, Object> p = manyEditsOfABigFile(root);
        String before = Files.readString(root.resolve("big.txt"));
        FileEngine engine = new FileEngine(FileToolSettings.builder().searchTimeout(Duration.ofMinutes(10)).build());
        Future<Map<String, Object>> call = start(engine, "file_edit", p);
        Await.until("the edits are being applied", () -> Thread.getAllStackTraces().values().stream().anyMatch(
                st -> java.util.Arrays.stream(st).anyMatch(f -> f.getClassName().endsWith("internal.file.FileEditing"))));
        call.cancel(true);     // interrupts the worker, as a daemon cancels a call
        Await.until("the worker left file_edit", () -> Thread.getAllStackTraces().values().stream().noneMatch(
                st -> java.util.Arrays.stream(st).anyMatch(f -> f.getClassName().endsWith("internal.file.FileEditing"))));
        assertThat(Files.readString(root.resolve("big.txt"))).isEqualTo(before);
    }

    @Test
    void anotherCallersGrepCompletesWhileTwoCatastrophicGrepsRun() throws Exception {
        // one engine serves every caller (as one backend serves every process), two threads per search
        FileEngine engine = new FileEngine(FileToolSettings.builder().parallelism(2)
                .searchTimeout(Duration.ofMinutes(10)).build());
        List<Future<Map<String, Object>>> evil = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            evil.add(start(engine, "file_grep", params("pattern", EVIL, "path", "evil" + i)));
        }
        awaitThreadsMatching(2);
        Map<String, Object> r;
        try {
            r = start(engine, "file_grep", params("pattern", "needle \\d+", "path", "small")).get(60, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("another caller's grep did not complete within 60 s beside two stuck searches", e);
        }
        assertThat(r.get("count")).isEqualTo(50);
        assertThat(r.get("truncated")).isEqualTo(false);
        assertThat(evil).noneMatch(Future::isDone);
        for (Future<Map<String, Object>> f : evil) {
            f.cancel(true);     // the caller gives up: its thread is interrupted
        }
        Await.until("the cancelled searches stopped", () -> threadsMatching() == 0);
    }

    @Test
    void cancelledGrepFailsCancelledAndStopsEveryThreadOfTheCall() throws Exception {
        FileEngine engine = new FileEngine(FileToolSettings.builder().parallelism(2)
                .searchTimeout(Duration.ofMinutes(10)).build());
        CompletableFuture<Thread> worker = new CompletableFuture<>();
        Future<ToolException> outcome = callers.submit(() -> {
            worker.complete(Thread.currentThread());
            try {
                engine.run("file_grep", gate, params("pattern", EVIL));
                return null;
            } catch (ToolException e) {
                assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is kept").isTrue();
                return e;
            }
        });
        awaitThreadsMatching(2);   // both evil files are being matched, one per thread of the call
        worker.get(60, TimeUnit.SECONDS).interrupt();
        ToolException e;
        try {
            e = outcome.get(60, TimeUnit.SECONDS);
        } catch (TimeoutException x) {
            throw new AssertionError("the interrupted grep did not end within 60 s", x);
        }
        assertThat(e).isNotNull();
        assertThat(e.code()).isEqualTo(ErrorCode.CANCELLED);
        assertThat(e.getMessage()).contains("file_grep was cancelled");
        assertThat(threadsMatching()).as("the call returned only after its threads stopped").isZero();
    }
}
