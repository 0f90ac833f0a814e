package org.vancetope.worktarget.core.internal.exec;

import static org.vancetope.worktarget.core.internal.exec.TestRoots.root;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.testfixtures.Await;

/** A caller interrupted while exec_run waits (a cancelled remote call) takes its job with it. */
class ExecCancellationTest {
    @TempDir
    Path dir;

    private final ExecEngine engine = ExecEngine.builder().settings(ExecSettings.builder().killGrace(Duration.ofMillis(500)).build()).build();

    @AfterEach
    void close() {
        engine.close();
    }

    @Test
    void interruptingTheWaitingCallerKillsTheJobItStarted() throws Exception {
        AtomicReference<Thread> caller = new AtomicReference<>();
        CompletableFuture<ExecResult> result = CompletableFuture.supplyAsync(() -> {
            caller.set(Thread.currentThread());
            try {
                return engine.run(new ExecRequest("s", "echo $$ > job.pid; exec sleep 1000", root(dir), Map.of(), 60_000L,
                        null, null));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Path pidFile = dir.resolve("job.pid");
        Await.until("the job wrote its pid", () -> {
            try {
                return Files.exists(pidFile) && !Files.readString(pidFile).isBlank();
            } catch (java.io.IOException e) {
                return false;
            }
        });
        long pid = Long.parseLong(Files.readString(pidFile).strip());
        caller.get().interrupt();
        ExecResult r = result.get(30, TimeUnit.SECONDS);
        Await.processGone(pid);
        assertThat(engine.status("s", r.id()).status()).isEqualTo(JobStatus.KILLED);
    }

    @Test
    void theAnswerOfAnInterruptedCallComesOnceItsJobIsKilled() throws Exception {
        ExecResult r;
        Thread.currentThread().interrupt();
        try {
            r = engine.run(new ExecRequest("s", "exec sleep 1000", root(dir), Map.of(), 60_000L, null, null));
        } finally {
            Thread.interrupted();
        }
        assertThat(r.status()).as("the answer of the cancelled call").isEqualTo(JobStatus.KILLED);
        assertThat(r.exitCode()).isNotNull();
    }

    @Test
    void anInterruptedCallWhoseJobIgnoresSigtermIsAnsweredKilledAfterTheGrace() throws Exception {
        ExecResult r;
        Thread.currentThread().interrupt();
        try {
            r = engine.run(new ExecRequest("s", "trap '' TERM; sleep 1000 & wait; wait", root(dir), Map.of(), 60_000L,
                    null, null));
        } finally {
            Thread.interrupted();
        }
        assertThat(r.status()).as("the answer of the cancelled call").isEqualTo(JobStatus.KILLED);
    }

    @Test
    void aCallerInterruptedBeforeItsJobStartsKillsThatJobAndKeepsItsInterruptStatus() throws Exception {
        ExecResult r;
        boolean stillInterrupted;
        Thread.currentThread().interrupt();
        try {
            r = engine.run(new ExecRequest("s", "exec sleep 1000", root(dir), Map.of(), 60_000L, null, null));
        } finally {
            stillInterrupted = Thread.interrupted();
        }
        assertThat(stillInterrupted).as("the caller's interrupt status after exec_run").isTrue();
        ExecResult done = engine.await("s", r.id(), 30_000);
        assertThat(done.status()).isEqualTo(JobStatus.KILLED);
    }

    @Test
    void aCallerThatIsNotInterruptedLeavesALongJobRunning() throws Exception {
        ExecResult r = engine.run(new ExecRequest("s", "exec sleep 1000", root(dir), Map.of(), 50L, null, null));
        assertThat(r.status()).isEqualTo(JobStatus.RUNNING);
        assertThat(engine.kill("s", r.id())).isTrue();
    }

    @Test
    void closeRemovesTheOutputFilesOfItsJobs() throws Exception {
        ExecEngine used = ExecEngine.builder().build();
        ExecResult r = used.run(new ExecRequest("s", "echo hi", root(dir), Map.of(), 30_000L, null, null));
        assertThat(dir.resolve(r.stdoutPath())).hasContent("hi\n");
        used.close();
        assertThat(dir.resolve(r.stdoutPath())).doesNotExist();
        assertThat(dir.resolve(r.stderrPath())).doesNotExist();
    }
}
