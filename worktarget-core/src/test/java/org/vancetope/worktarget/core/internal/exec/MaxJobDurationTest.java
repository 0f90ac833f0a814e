package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.vancetope.worktarget.core.internal.exec.TestRoots.root;

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
import org.vancetope.worktarget.spi.ToolException;

/**
 * The server's limit on a job's run ({@code maxJobDuration}): a job without a deadline gets it, a longer
 * deadline is cut to it, a shorter one stays the caller's, a job ended by it says that the limit is the
 * server's (a larger deadline does not lift it), and a running job says which deadline will end it. Real jobs; only the status and the words are asserted.
 */
@EnabledOnOs(OS.LINUX)
class MaxJobDurationTest {
    private static final Map<String, String> ENV = Map.of("PATH", "/usr/bin:/bin");

    @TempDir
    Path dir;
    private ExecEngine engine;

    @BeforeEach
    void startEngine() {
        engine = ExecEngine.builder().settings(ExecSettings.builder().maxJobDuration(Duration.ofSeconds(1))
                .killGrace(Duration.ofMillis(200)).build()).build();
    }

    @AfterEach
    void closeEngine() {
        engine.close();
    }

    private ExecResult run(String command, Long deadlineSeconds) throws ToolException {
        return run(command, deadlineSeconds, 60_000L);
    }

    private ExecResult run(String command, Long deadlineSeconds, long waitMs) throws ToolException {
        return engine.run(new ExecRequest("s", command, root(dir), ENV, waitMs, deadlineSeconds, null));
    }

    @Test
    void aJobWithoutADeadlineIsEndedAtTheServersLimitAndSaysSo() throws Exception {
        ExecResult r = run("sleep 300", null);

        assertThat(r.status()).isEqualTo(JobStatus.TIMED_OUT);
        assertThat(r.hint()).isEqualTo(ExecResults.serverLimitHint(1)).startsWith("The job ran into this server's "
                + "limit of 1 s per job (maxJobDuration) and was ended").contains("A larger deadlineSeconds does not "
                + "lift this limit");
    }

    @Test
    void aLongerDeadlineIsCutToTheServersLimit() throws Exception {
        ExecResult r = run("sleep 300", 120L);

        assertThat(r.status()).isEqualTo(JobStatus.TIMED_OUT);
        assertThat(r.hint()).contains("this server's limit of 1 s per job (maxJobDuration)");
    }

    @Test
    void aShorterOrEqualDeadlineStaysTheCallers() throws Exception {
        ExecResult r = run("sleep 300", 1L);

        assertThat(r.status()).isEqualTo(JobStatus.TIMED_OUT);
        assertThat(r.hint()).startsWith("The job ran into its deadline (deadlineSeconds 1)").doesNotContain(
                "maxJobDuration");
    }

    @Test
    void aRunningJobSaysWhichDeadlineWillEndIt() throws Exception {
        try (ExecEngine roomy = ExecEngine.builder().settings(ExecSettings.builder()
                .maxJobDuration(Duration.ofSeconds(600)).killGrace(Duration.ofMillis(200)).build()).build()) {
            ExecResult server = roomy.run(new ExecRequest("s", "sleep 300", root(dir), ENV, 0L, null, null));
            ExecResult own = roomy.run(new ExecRequest("s", "sleep 300", root(dir), ENV, 0L, 30L, null));

            assertThat(server.status()).isEqualTo(JobStatus.RUNNING);
            assertThat(server.hint()).contains("still running").endsWith("This server ends every job 600 s after its "
                    + "start (maxJobDuration), this one too.");
            assertThat(own.hint()).endsWith("Its deadline ends it 30 s after its start (deadlineSeconds).");
        }
        try (ExecEngine unlimited = ExecEngine.builder().build()) {
            ExecResult none = unlimited.run(new ExecRequest("s", "sleep 300", root(dir), ENV, 0L, null, null));
            assertThat(none.hint()).contains("still running").doesNotContain("deadline").doesNotContain("maxJob");
        }
    }

    @Test
    void aJobThatEndsInTimeIsNotTouched() throws Exception {
        ExecResult r = run("echo done", null);

        assertThat(r.status()).isEqualTo(JobStatus.EXITED);
        assertThat(r.stdout().strip()).isEqualTo("done");
        assertThat(r.hint()).isNull();
    }
}
