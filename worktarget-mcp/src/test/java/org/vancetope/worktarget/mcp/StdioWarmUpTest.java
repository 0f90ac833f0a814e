package org.vancetope.worktarget.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.json.McpJsonDefaults;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.internal.path.Reserved;
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
        assertThat(w.directory().getFileName().toString()).as("the name says whose it is")
                .startsWith(StdioWarmUp.DIR_PREFIX + Reserved.owner() + "-");
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

    @Test
    void theDirectoryOfAWarmUpWhoseProcessIsGoneIsDeletedAndTheOthersStay(@TempDir Path tmp) throws Exception {
        Process ended = new ProcessBuilder("true").start();
        assertThat(ended.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String endedOwner = Reserved.ownerOfProcess(ended.pid());
        Path killed = Files.createDirectories(tmp.resolve(StdioWarmUp.DIR_PREFIX + endedOwner + "-123/src/a"));
        Files.writeString(killed.resolve("f1.txt"), "left by a warm-up killed with SIGKILL");
        Path live = Files.createDirectory(tmp.resolve(StdioWarmUp.DIR_PREFIX + Reserved.owner() + "-456"));
        String otherHost = endedOwner.startsWith("0000") ? "0001" : "0000";
        Path ofAnotherHost = Files.createDirectory(tmp.resolve(StdioWarmUp.DIR_PREFIX + otherHost
                + endedOwner.substring(4) + "-789"));
        Path oldForm = Files.createDirectory(tmp.resolve("worktarget-mcp-warm-up789"));
        Path other = Files.createDirectory(tmp.resolve("something-else-" + endedOwner + "-1"));

        assertThat(StdioWarmUp.deleteLeftovers(tmp)).isEqualTo(1);

        assertThat(tmp.resolve(StdioWarmUp.DIR_PREFIX + endedOwner + "-123")).doesNotExist();
        assertThat(live).as("its process runs").isDirectory();
        assertThat(ofAnotherHost).as("its process cannot be checked from here").isDirectory();
        assertThat(oldForm).as("no owner in its name").isDirectory();
        assertThat(other).isDirectory();
    }
}
