package org.vancetope.worktarget.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.json.McpJsonDefaults;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.mcp.internal.StdioWarmUp;
import org.vancetope.worktarget.testfixtures.Await;

class StdioWarmUpTest {
    private static final int CALLS = 40; // more than two rounds, one of them with the writes

    @Test
    void runsItsCallsSuccessfullyInATemporaryDirectoryOfItsOwnAndDeletesIt() {
        AtomicInteger idleChecks = new AtomicInteger();
        StdioWarmUp w = StdioWarmUp.start(McpJsonDefaults.getMapper(), idleChecks::incrementAndGet,
                McpWorkTargetServer::warmUpTarget, CALLS);
        Await.until("the warm-up ended", w::ended);
        assertThat(w.callsDone()).isEqualTo(CALLS);
        assertThat(w.callsFailedUnexpectedly()).as("every call but the deliberate path escape succeeded").isZero();
        assertThat(idleChecks.get()).as("it waited for an idle client before each call").isGreaterThanOrEqualTo(CALLS);
        assertThat(w.directory()).startsWithRaw(Path.of(System.getProperty("java.io.tmpdir")));
        assertThat(Files.exists(w.directory())).as("its directory is deleted").isFalse();
    }

    @Test
    void runsNoCallWhileTheClientHasARequestUnanswered() throws Exception {
        CountDownLatch clientDone = new CountDownLatch(1);
        AtomicInteger waiting = new AtomicInteger();
        StdioWarmUp w = StdioWarmUp.start(McpJsonDefaults.getMapper(), () -> {
            waiting.incrementAndGet();
            clientDone.await();
        }, McpWorkTargetServer::warmUpTarget, CALLS);
        try {
            Await.until("the warm-up waits for the client", () -> waiting.get() > 0);
            assertThat(w.callsDone()).isZero();
            clientDone.countDown();
            Await.until("the warm-up ended", w::ended);
            assertThat(w.callsDone()).isEqualTo(CALLS);
        } finally {
            w.close();
        }
    }

    @Test
    void closeStopsItAndDeletesItsDirectory() {
        CountDownLatch never = new CountDownLatch(1);
        AtomicInteger waiting = new AtomicInteger();
        StdioWarmUp w = StdioWarmUp.start(McpJsonDefaults.getMapper(), () -> {
            waiting.incrementAndGet();
            never.await();
        }, McpWorkTargetServer::warmUpTarget, CALLS);
        Await.until("the warm-up waits for the client", () -> waiting.get() > 0);
        w.close();
        assertThat(w.ended()).isTrue();
        assertThat(w.callsDone()).isZero();
        assertThat(Files.exists(w.directory())).as("its directory is deleted").isFalse();
    }
}
