package org.vancetope.worktarget.backend.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.spi.SessionKey;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.testfixtures.Await;

/** The end of a process reaches the CLIENT backend: the jobs of its own scope end; a session's jobs stay. */
@EnabledOnOs(OS.LINUX)
class LocalProcessEndTest {
    @TempDir
    Path dir;
    private LocalBackend local;

    @BeforeEach
    void setUp() {
        local = LocalBackend.builder().workDirectory(dir).execSettings(ExecSettings.builder().killGrace(Duration.ofMillis(200)).build())
                .build();
    }

    @AfterEach
    void tearDown() {
        local.close();
    }

    private long startSleeper(ToolContext ctx, String pidFile) throws Exception {
        local.find(new SessionKey("acme", "any")).orElseThrow().invoke("client_exec_run", Map.of("command", "echo $$ > " + pidFile
                + "; exec sleep 1000", "waitMs", 0), ctx, null);
        return Long.parseLong(Await.line(dir.resolve(pidFile)));
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    @Test
    void theJobsOfAProcessWithoutASessionEndWithTheProcess() throws Exception {
        ToolContext p1 = new ToolContext("p1", null, "acme", "proj", null);
        long pid = startSleeper(p1, "p1.pid");
        local.processEnded(p1);
        Await.until("job " + pid + " ended", () -> !alive(pid));
        try (var s = Files.list(dir.resolve(".worktarget/exec"))) {
            assertThat(s.flatMap(d -> {
                try {
                    return Files.list(d);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).toList()).as("output files").isEmpty();
        }
    }

    @Test
    void theJobsOfASessionOutliveOneOfItsProcesses() throws Exception {
        ToolContext p1 = new ToolContext("p1", "s1", "acme", "proj", null);
        long pid = startSleeper(p1, "s1.pid");
        local.processEnded(p1);
        Thread.sleep(300); // an absence cannot be awaited: time for a wrong end of the job to show
        assertThat(alive(pid)).as("the session's job").isTrue();
    }
}
