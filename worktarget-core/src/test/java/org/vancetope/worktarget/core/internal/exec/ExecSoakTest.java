package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.core.internal.home.ExecEnvPolicy;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.testfixtures.Await;
import org.vancetope.worktarget.testfixtures.ManualTime;

/**
 * A bounded soak, as a daemon sees it: 2,000 {@code exec_run} calls through the tools, spread over 400
 * sessions that each come and go, with nothing closing a scope explicitly. Output retention and idle
 * expiry (on a clock the test moves) must bring job objects, scopes and output files back to zero, and
 * the engine's threads must not grow with the number of calls and must end with the engine.
 */
class ExecSoakTest {
    static final int CALLS = 2_000;
    static final int SESSIONS = 400;
    static final int CALLS_PER_MINUTE = 100;
    static final Duration RETENTION = Duration.ofMinutes(2);
    static final Duration IDLE = Duration.ofMinutes(5);
    /** Far above what sequential calls need (spawner, watchdog, a few pump threads), far below one per call. */
    static final int THREAD_BOUND = 16;

    @TempDir
    Path dir;

    @Test
    void twoThousandRunsOverComingAndGoingSessionsLeaveNoJobsFilesOrThreadsBehind() throws Exception {
        ManualTime time = new ManualTime();
        int threadsBefore = engineThreads();
        ExecEngine engine = ExecEngine.builder().clock(time.clock()).expiryCheckMs(5)
                .settings(ExecSettings.builder().outputRetention(RETENTION).scopeIdle(IDLE)
                        .build())
                .build();
        int peakFiles = 0;
        int peakScopes = 0;
        int peakThreads = 0;
        try {
            List<BackendTool> tools = ExecTools.create(engine, ToolCatalog.CLIENT_PREFIX, ExecResolvers.client(
                    TestRoots.root(dir), ExecEnvPolicy.client(Map.of("PATH", "/usr/bin:/bin"))));
            BackendTool run = tools.get(0);
            for (int i = 0; i < CALLS; i++) {
                // Sessions come in waves: session k is used around minute k / 20, then never again.
                int session = (int) ((long) i * SESSIONS / CALLS);
                ToolContext ctx = new ToolContext("p-" + session, "s-" + session, "acme", "shop", "alice");
                Map<String, Object> r = run.invoke(Map.of("command", "echo call " + i), ctx);
                assertThat(r).as("call %d", i).containsEntry("status", "exited");
                if ((i + 1) % CALLS_PER_MINUTE == 0) {
                    time.advance(Duration.ofMinutes(1));
                    peakFiles = Math.max(peakFiles, outputFiles());
                    peakScopes = Math.max(peakScopes, engine.scopeCount());
                    peakThreads = Math.max(peakThreads, engineThreads());
                }
            }
            // Expiry works during the run, not only at its end (without it: every scope, two files per call).
            assertThat(peakScopes).as("scopes alive at once").isLessThan(SESSIONS / 2);
            assertThat(peakFiles).as("output files at once").isLessThan(CALLS);
            assertThat(peakThreads).as("engine threads during the soak").isLessThanOrEqualTo(threadsBefore + THREAD_BOUND);

            time.advance(IDLE);

            Await.until("every scope expired", () -> engine.scopeCount() == 0);
            Await.until("every output file deleted", () -> outputFiles() == 0);
            System.out.printf("soak: %d calls over %d sessions; peak %d output files, %d scopes, %d engine threads "
                    + "(%d before); at the end %d files, %d scopes%n", CALLS, SESSIONS, peakFiles, peakScopes, peakThreads,
                    threadsBefore, outputFiles(), engine.scopeCount());
        } finally {
            engine.close();
        }
        Await.until("the engine's threads ended with it", () -> engineThreads() <= threadsBefore);
    }

    /** Entries in the root's job output directories (names only: files come and go while it counts). */
    private int outputFiles() {
        int n = 0;
        try (DirectoryStream<Path> owners = Files.newDirectoryStream(dir.resolve(".worktarget/exec"))) {
            for (Path owner : owners) {
                try (DirectoryStream<Path> files = Files.newDirectoryStream(owner)) {
                    for (Path ignored : files) {
                        n++;
                    }
                }
            }
            return n;
        } catch (NoSuchFileException e) {
            return n;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int engineThreads() {
        return (int) Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("worktarget-exec-")).count();
    }
}
