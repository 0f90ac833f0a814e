package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.vancetope.worktarget.core.internal.exec.TestRoots.root;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.testfixtures.Await;
import org.vancetope.worktarget.testfixtures.ManualTime;

/**
 * Finished jobs' output files expire after {@code outputRetention}, idle scopes are closed after
 * {@code scopeIdle}: on the engine's clock (moved by the test), checked by the engine's scheduler
 * every few milliseconds ({@code expiryCheckMs}) or by an explicit pass where a test must know that a
 * pass ran and did nothing.
 */
class ExecExpiryTest {
    static final Map<String, String> ENV = Map.of("PATH", "/usr/bin:/bin");
    static final Duration RETENTION = Duration.ofMinutes(1);
    static final Duration IDLE = Duration.ofMinutes(10);

    @TempDir
    Path dir;

    final ManualTime time = new ManualTime();
    ExecEngine engine;

    @AfterEach
    void tearDown() {
        if (engine != null) {
            engine.close();
        }
    }

    private ExecEngine engine(Duration retention, Duration idle) {
        engine = ExecEngine.builder().clock(time.clock()).expiryCheckMs(5)
                .settings(ExecSettings.builder().killGrace(Duration.ofMillis(300)).outputRetention(retention)
                        .scopeIdle(idle).build())
                .build();
        return engine;
    }

    private ExecResult run(String scope, String command, long waitMs) throws ToolException {
        return engine.run(new ExecRequest(scope, command, root(dir), ENV, waitMs, null, null));
    }

    private static void awaitGone(Path file) {
        Await.until(file + " deleted", () -> !Files.exists(file));
    }

    // ------------------------------------------------------------------------------ output retention

    @Test
    void outputFilesOfAFinishedJobStayWhileTheRetentionRuns() throws ToolException {
        engine(RETENTION, Duration.ZERO);
        ExecResult r = run("s1", "echo hi", 30_000L);

        time.advance(RETENTION.minusSeconds(1));

        assertThat(engine.expireNow().outputsExpired()).isZero();
        assertThat(dir.resolve(r.stdoutPath())).hasContent("hi\n");
        assertThat(dir.resolve(r.stderrPath())).exists();
    }

    @Test
    void outputFilesOfAFinishedJobAreDeletedOnceTheRetentionHasPassed() throws ToolException {
        engine(RETENTION, Duration.ZERO);
        ExecResult r = run("s1", "echo hi; echo err >&2", 30_000L);

        time.advance(RETENTION);

        awaitGone(dir.resolve(r.stdoutPath()));
        awaitGone(dir.resolve(r.stderrPath()));
    }

    @Test
    void statusOfAJobWhoseOutputExpiredSaysSoAndKeepsItsOutcomeAndInMemoryOutput() throws ToolException {
        engine(RETENTION, Duration.ZERO);
        ExecResult r = run("s1", "echo hi; exit 3", 30_000L);
        time.advance(RETENTION);
        awaitGone(dir.resolve(r.stdoutPath()));

        ExecResult later = engine.status("s1", r.id());

        assertThat(later.status()).isEqualTo(JobStatus.FAILED);
        assertThat(later.exitCode()).isEqualTo(3);
        assertThat(later.stdout()).isEqualTo("hi\n");
        assertThat(later.stdoutPath()).isNull();
        assertThat(later.stderrPath()).isNull();
        assertThat(later.hint()).contains("deleted", "1 min", "outputRetention", "Run the command again");
        assertThat(later.toMap()).containsEntry("stdoutPath", null).containsKey("hint");
    }

    @Test
    void tailOfAJobWhoseOutputExpiredAnswersFromMemoryWithoutAPath() throws ToolException {
        engine(RETENTION, Duration.ZERO);
        ExecResult r = run("s1", "seq 1 5", 30_000L);
        time.advance(RETENTION);
        awaitGone(dir.resolve(r.stdoutPath()));

        ExecTailResult t = engine.tail("s1", r.id(), 2, false);

        assertThat(t.lines()).containsExactly("4", "5");
        assertThat(t.path()).isNull();
    }

    @Test
    void outputOfARunningJobNeverExpires() throws ToolException {
        engine(RETENTION, Duration.ZERO);
        ExecResult r = run("s1", "echo started; sleep 1000", 0L);

        time.advance(Duration.ofHours(5));

        assertThat(engine.expireNow().outputsExpired()).isZero();
        assertThat(dir.resolve(r.stdoutPath())).exists();
        assertThat(engine.status("s1", r.id()).stdoutPath()).isNotNull();
        assertThat(engine.kill("s1", r.id())).isTrue();
    }

    @Test
    void retentionCountsFromTheEndOfTheJobNotFromItsStart() throws Exception {
        engine(RETENTION, Duration.ZERO);
        ExecResult r = run("s1", "while [ ! -e go ]; do sleep 0.01; done; echo done", 0L);
        time.advance(RETENTION.multipliedBy(3));
        Files.writeString(dir.resolve("go"), "");
        assertThat(engine.await("s1", r.id(), 30_000).status()).isEqualTo(JobStatus.EXITED);

        assertThat(engine.expireNow().outputsExpired()).as("just finished").isZero();
        assertThat(dir.resolve(r.stdoutPath())).hasContent("done\n");

        time.advance(RETENTION);
        awaitGone(dir.resolve(r.stdoutPath()));
    }

    @Test
    void zeroRetentionKeepsTheOutputUntilTheJobIsForgotten() throws ToolException {
        engine(Duration.ZERO, Duration.ZERO);
        ExecResult r = run("s1", "echo kept", 30_000L);

        time.advance(Duration.ofDays(400));

        assertThat(engine.expireNow()).isEqualTo(new ExecExpiry.Pass(0, 0));
        assertThat(dir.resolve(r.stdoutPath())).hasContent("kept\n");
        assertThat(engine.status("s1", r.id()).stdoutPath()).isEqualTo(r.stdoutPath());
    }

    // ------------------------------------------------------------------------------ idle scopes

    @Test
    void aScopeWhoseJobsFinishedIsClosedOnceIdleWithItsJobsAndFiles() throws ToolException {
        engine(Duration.ZERO, IDLE);
        ExecResult r = run("s1", "echo hi", 30_000L);

        time.advance(IDLE);

        awaitGone(dir.resolve(r.stdoutPath()));
        awaitGone(dir.resolve(r.stderrPath()));
        assertThat(engine.scopeCount()).isZero();
        assertThat(engine.jobCount("s1")).isZero();
    }

    @Test
    void aJobOfAnExpiredScopeIsNotFoundWithAMessageNamingTheSetting() throws ToolException {
        engine(Duration.ZERO, IDLE);
        ExecResult r = run("s1", "echo hi", 30_000L);
        time.advance(IDLE);
        Await.until("scope s1 closed", () -> engine.scopeCount() == 0);

        assertThatThrownBy(() -> engine.status("s1", r.id())).isInstanceOfSatisfying(ToolException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
            assertThat(e.getMessage()).contains("scopeIdle", "10 min", "Run the command again");
        });
    }

    @Test
    void aCallOfTheScopeKeepsItFromExpiring() throws ToolException {
        engine(Duration.ZERO, IDLE);
        ExecResult r = run("s1", "echo hi", 30_000L);
        time.advance(IDLE.minusMinutes(1));
        engine.status("s1", r.id());

        time.advance(Duration.ofMinutes(2));

        assertThat(engine.expireNow().scopesClosed()).isZero();
        assertThat(engine.jobCount("s1")).isEqualTo(1);
        time.advance(IDLE);
        Await.until("scope s1 closed after a full idle time since the call", () -> engine.scopeCount() == 0);
    }

    @Test
    void aScopeWithARunningJobNeverExpires() throws ToolException {
        engine(Duration.ZERO, IDLE);
        ExecResult r = run("s1", "sleep 1000", 0L);

        time.advance(IDLE.multipliedBy(10));

        assertThat(engine.expireNow().scopesClosed()).isZero();
        assertThat(engine.status("s1", r.id()).status()).isEqualTo(JobStatus.RUNNING);
        assertThat(engine.kill("s1", r.id())).isTrue();
    }

    @Test
    void idlenessCountsFromTheEndOfTheLastJob() throws Exception {
        engine(Duration.ZERO, IDLE);
        ExecResult r = run("s1", "while [ ! -e go ]; do sleep 0.01; done", 0L);
        time.advance(IDLE.multipliedBy(3));
        Files.writeString(dir.resolve("go"), "");
        Await.until("job finished", () -> finished(engine, r.id()));

        assertThat(engine.expireNow().scopesClosed()).as("finished just now").isZero();

        time.advance(IDLE);
        Await.until("scope s1 closed", () -> engine.scopeCount() == 0);
    }

    /** Whether the job finished (a call of the scope too; the test moves the clock only after it). */
    private static boolean finished(ExecEngine e, String id) {
        try {
            return e.await("s1", id, 0).status().finished();
        } catch (ToolException ex) {
            throw new AssertionError(ex);
        }
    }

    @Test
    void idleExpiryEndsWhatTheScopesFinishedJobsLeftRunning() throws Exception {
        engine(Duration.ZERO, IDLE);
        run("s1", "sh -c 'setsid sleep 1000 & echo $! > left.pid'", 30_000L);
        long left = Long.parseLong(Files.readString(dir.resolve("left.pid")).strip());
        assertThat(ProcessHandle.of(left).map(ProcessHandle::isAlive)).contains(true);

        time.advance(IDLE);

        Await.processGone(left);
    }

    @Test
    void onlyTheIdleScopeIsClosed() throws ToolException {
        engine(Duration.ZERO, IDLE);
        run("idle", "true", 30_000L);
        time.advance(IDLE.minusMinutes(1));
        ExecResult busy = run("busy", "true", 30_000L);

        time.advance(Duration.ofMinutes(1));

        Await.until("scope idle closed", () -> engine.scopeCount() == 1);
        assertThat(engine.jobCount("idle")).isZero();
        assertThat(engine.status("busy", busy.id()).status()).isEqualTo(JobStatus.EXITED);
    }

    @Test
    void aScopeClosedForIdlenessStartsAfreshOnItsNextRun() throws ToolException {
        engine(Duration.ZERO, IDLE);
        run("s1", "true", 30_000L);
        time.advance(IDLE);
        Await.until("scope s1 closed", () -> engine.scopeCount() == 0);

        ExecResult again = run("s1", "echo again", 30_000L);

        assertThat(again.stdout()).isEqualTo("again\n");
        assertThat(engine.jobCount("s1")).isEqualTo(1);
    }

    @Test
    void zeroIdleTimeKeepsIdleScopes() throws ToolException {
        engine(Duration.ZERO, Duration.ZERO);
        run("s1", "true", 30_000L);

        time.advance(Duration.ofDays(400));

        assertThat(engine.expireNow().scopesClosed()).isZero();
        assertThat(engine.jobCount("s1")).isEqualTo(1);
    }

    // ------------------------------------------------------------------------------ settings

    @Test
    void defaultsKeepOutputAndIdleScopesForOneHour() {
        assertThat(ExecSettings.defaults().outputRetention()).isEqualTo(Duration.ofHours(1));
        assertThat(ExecSettings.defaults().scopeIdle()).isEqualTo(Duration.ofHours(1));
        assertThat(ExecExpiry.defaultCheckMs(3_600_000L, 3_600_000L)).isEqualTo(60_000L);
    }

    @Test
    void defaultCheckIntervalFollowsTheShorterExpiryWithinItsBounds() {
        assertThat(ExecExpiry.defaultCheckMs(20_000L, 0)).isEqualTo(2_000L);
        assertThat(ExecExpiry.defaultCheckMs(0, 30_000L)).isEqualTo(3_000L);
        assertThat(ExecExpiry.defaultCheckMs(500L, 0)).isEqualTo(1_000L);
        assertThat(ExecExpiry.defaultCheckMs(0, 86_400_000L)).isEqualTo(60_000L);
    }

    @Test
    void negativeExpirySettingsAreRefusedNamingTheSetting() {
        assertThatThrownBy(() -> ExecSettings.builder().outputRetention(Duration.ofMillis(-1)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outputRetention");
        assertThatThrownBy(() -> ExecSettings.builder().scopeIdle(Duration.ofMillis(-1)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("scopeIdle");
        assertThatThrownBy(() -> ExecEngine.builder().expiryCheckMs(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expiryCheckMs");
    }

    @Test
    void expirySettingsSurviveToBuilder() {
        ExecSettings s = ExecSettings.builder().outputRetention(Duration.ofMillis(5)).scopeIdle(Duration.ofMillis(7)).build();
        assertThat(s.toBuilder().build()).isEqualTo(s);
    }

    @Test
    void closingTheEngineDeletesOutputThatIsStillRetained() throws ToolException {
        engine(RETENTION, Duration.ZERO);
        ExecResult r = run("s1", "echo hi", 30_000L);
        engine.close();
        assertThat(dir.resolve(r.stdoutPath())).doesNotExist();
        assertThat(engine.scopeCount()).isZero();
    }
}
