package org.vancetope.worktarget.backend.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The CLIENT backend on the real disk under the conditions the file tools' own tests do not create:
 * a link swapped in while writes create parents, a write in flight while another caller lists, and
 * job output read back with the same backend's file tools. Every test fails on a gate that creates
 * parents by path name, stages beside the target, or puts job output outside the work directory.
 */
@EnabledOnOs({OS.LINUX, OS.MAC})
class LocalConfinementTest {
    private static final ToolContext CTX = new ToolContext("p1", null, "acme", "proj", null);
    /** How long the race runs; it also stops after this many writes per writer. */
    private static final long RACE_MILLIS = 3_000;
    private static final int RACE_WRITES_PER_WRITER = 2_500;

    @TempDir
    Path tmp;
    private Path root;
    private Path outside;
    private LocalBackend local;

    @BeforeEach
    void setUp() throws IOException {
        root = Files.createDirectories(tmp.resolve("root"));
        outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), "TOP SECRET\n");
        local = LocalBackend.builder().workDirectory(root).build();
    }

    @AfterEach
    void tearDown() {
        local.close();
    }

    private BackendTool tool(String name) {
        return local.tools().stream().filter(t -> t.spec().name().equals(name)).findFirst().orElseThrow();
    }

    private Map<String, Object> call(String name, Object... kv) throws ToolException {
        Map<String, Object> p = new java.util.LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            p.put((String) kv[i], kv[i + 1]);
        }
        return tool(name).invoke(p, CTX);
    }

    private List<String> outsideTree() throws IOException {
        try (Stream<Path> s = Files.walk(outside)) {
            return s.map(p -> outside.relativize(p).toString()).sorted().toList();
        }
    }

    @SuppressWarnings("unchecked")
    private static List<String> names(Object entries) {
        List<String> out = new ArrayList<>();
        for (Object e : (List<Object>) entries) {
            out.add(e instanceof Map<?, ?> m ? String.valueOf(m.get("path")) : String.valueOf(e));
        }
        return out;
    }

    private static boolean internal(String name) {
        String last = name.substring(name.lastIndexOf('/') + 1);
        return name.startsWith(".worktarget") || last.startsWith(".wt-") || last.endsWith(".part") || last.endsWith(".tmp");
    }

    @Test
    void jailbreakParentCreationUnderALinkSwapRaceCreatesNothingOutsideTheRoot() throws Exception {
        Path d = Files.createDirectories(root.resolve("d"));
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger swaps = new AtomicInteger();
        AtomicInteger planted = new AtomicInteger();     // times the link stood where "d" was
        Thread swapper = new Thread(() -> {
            Path aside = root.resolve("d-aside");
            while (!stop.get()) {
                try {
                    Files.move(d, aside);
                    Files.createSymbolicLink(d, outside);
                    planted.incrementAndGet();
                    Thread.onSpinWait();
                    Files.delete(d);
                    Files.move(aside, d);
                    swaps.incrementAndGet();
                } catch (FileAlreadyExistsException | NoSuchFileException e) {
                    // a writer made "d" while it was away: put the real one back under another name and go on
                    try {
                        if (Files.isSymbolicLink(d)) {
                            Files.delete(d);
                        }
                        if (Files.exists(aside, LinkOption.NOFOLLOW_LINKS)) {
                            Files.move(aside, root.resolve("d-aside-" + swaps.get()));
                        }
                    } catch (IOException ignored) {
                        // next round
                    }
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }
        }, "link-swapper");
        AtomicInteger ok = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RACE_MILLIS);
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            int writer = w;
            writers.add(new Thread(() -> {
                // the race must have run: under load the swapper may get its first turn late, so the writers go on
                // (up to a bound on writes, not on time) until the link stood in place at least once
                for (int i = 0; (i < RACE_WRITES_PER_WRITER && System.nanoTime() < deadline)
                        || (planted.get() == 0 && i < 20 * RACE_WRITES_PER_WRITER); i++) {
                    try {
                        call("client_file_write", "path", "d/new-" + writer + "-" + i + "/deeper/x.txt", "content", "x");
                        ok.incrementAndGet();
                    } catch (ToolException e) {
                        refused.incrementAndGet();
                    }
                }
            }, "writer-" + w));
        }
        swapper.start();
        writers.forEach(Thread::start);
        for (Thread t : writers) {
            t.join();
        }
        stop.set(true);
        swapper.join();
        System.out.printf("link-swap race: %d writes (%d ok, %d refused), %d links planted, %d swaps%n",
                ok.get() + refused.get(), ok.get(), refused.get(), planted.get(), swaps.get());
        assertThat(outsideTree()).as("nothing may appear outside the root").containsExactly("", "secret.txt");
        assertThat(Files.readString(outside.resolve("secret.txt"))).isEqualTo("TOP SECRET\n");
        assertThat(planted.get()).as("the race ran: the link stood in place of d").isPositive();
        assertThat(ok.get() + refused.get()).as("writes ran").isPositive();
        try (Stream<Path> s = Files.list(root)) {
            assertThat(s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".wt-"))).as("no staging left")
                    .isEmpty();
        }
    }

    @Test
    void noListingEverShowsAStagingFileWhileWritesAreInFlight() throws Exception {
        Files.createDirectories(root.resolve("sub"));
        String big = "x".repeat(512 * 1024);
        AtomicBoolean stop = new AtomicBoolean();
        Thread writer = new Thread(() -> {
            for (int i = 0; !stop.get(); i++) {
                try {
                    call("client_file_write", "path", "sub/big-" + (i % 4) + ".txt", "content", big);
                } catch (ToolException e) {
                    throw new IllegalStateException(e);
                }
            }
        }, "writer");
        writer.start();
        int rounds = 300;
        int seen = 0;
        try {
            for (int i = 0; i < rounds; i++) {
                List<String> all = new ArrayList<>();
                all.addAll(names(call("client_file_list", "path", "sub").get("entries")));
                all.addAll(names(call("client_file_list", "path", ".").get("entries")));
                all.addAll(names(call("client_file_find", "path", ".").get("files")));
                if (all.stream().anyMatch(LocalConfinementTest::internal)) {
                    seen++;
                }
            }
        } finally {
            stop.set(true);
            writer.join();
        }
        assertThat(seen).as("rounds of %d in which a listing showed a library-internal file", rounds).isZero();
    }

    @Test
    void aJobsStdoutPathIsReadableWithTheSameBackendsFileTools() throws Exception {
        Map<String, Object> r = call("client_exec_run", "command", "echo one; echo two; echo oops >&2");
        String out = (String) r.get("stdoutPath");
        String err = (String) r.get("stderrPath");
        assertThat(out).startsWith(".worktarget/exec/").endsWith(".stdout");
        assertThat(call("client_file_read", "path", out).get("content")).isEqualTo("one\ntwo\n");
        assertThat(call("client_file_read", "path", err).get("content")).isEqualTo("oops\n");
        assertThat(call("client_file_head_tail", "path", out, "tail", 1).get("tail")).isEqualTo("two\n");
    }

    @Test
    void earlierJobOutputIsNeverSearchedListedOrFound() throws Exception {
        call("client_exec_run", "command", "echo needle-from-a-job");
        call("client_file_write", "path", "notes.txt", "content", "needle-in-a-file\n");
        Map<String, Object> grep = call("client_file_grep", "pattern", "needle", "path", ".");
        assertThat(names(grep.get("matches"))).containsExactly("notes.txt");
        assertThat(names(call("client_file_list", "path", ".").get("entries"))).containsExactly("notes.txt");
        assertThat(names(call("client_file_find", "path", ".").get("files"))).containsExactly("notes.txt");
        assertThat(call("client_file_count", "path", ".").get("files")).isEqualTo(1);
    }
}
