package org.vancetope.worktarget.backend.daemon.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.testfixtures.Await;

/** The named processes of admin calls: scope, count limit, explicit end, idle end, and ends racing calls. */
class AdminProcessesTest {
    private static final Duration IDLE = Duration.ofMinutes(60);

    private final AtomicLong now = new AtomicLong(1_000);
    private final List<String> ended = new CopyOnWriteArrayList<>();
    private final AdminProcesses processes = new AdminProcesses(ended::add, IDLE, 3, now::get);

    private void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }

    @Test
    void aProcessKeepsTheTenantAndProjectOfItsFirstCall() {
        assertThat(processes.enter("p", "acme", "shop")).isNull();
        processes.exit("p");
        assertThat(processes.enter("p", "acme", "other")).isEqualTo(AdminProcesses.Refusal.OTHER_SCOPE);
        assertThat(processes.enter("p", "globex", "shop")).isEqualTo(AdminProcesses.Refusal.OTHER_SCOPE);
        assertThat(processes.scopeOf("p")).isEqualTo("acme/shop");
        assertThat(processes.enter("p", "acme", "shop")).isNull();
    }

    @Test
    void oneProcessMoreThanTheLimitIsRefusedAndAnEndMakesRoom() {
        for (String id : List.of("a", "b", "c")) {
            assertThat(processes.enter(id, "acme", "shop")).isNull();
            processes.exit(id);
        }
        assertThat(processes.enter("d", "acme", "shop")).isEqualTo(AdminProcesses.Refusal.TOO_MANY);
        assertThat(processes.enter("a", "acme", "shop")).as("an existing process is not one more").isNull();
        processes.exit("a");

        assertThat(processes.end("b")).isEqualTo(AdminProcesses.Ended.ENDED);

        assertThat(processes.enter("d", "acme", "shop")).isNull();
        assertThat(ended).containsExactly("b");
    }

    @Test
    void endRefusesAProcessWithARunningCallAndKnowsNoUnknownId() {
        assertThat(processes.enter("p", "acme", "shop")).isNull();

        assertThat(processes.end("p")).isEqualTo(AdminProcesses.Ended.BUSY);
        assertThat(processes.end("q")).isEqualTo(AdminProcesses.Ended.UNKNOWN);
        assertThat(ended).isEmpty();

        processes.exit("p");
        assertThat(processes.end("p")).isEqualTo(AdminProcesses.Ended.ENDED);
        assertThat(processes.end("p")).isEqualTo(AdminProcesses.Ended.UNKNOWN);
        assertThat(ended).containsExactly("p");
        assertThat(processes.size()).isZero();
    }

    @Test
    void theSweepEndsProcessesIdleForTheIdleTimeCountedFromTheirLastCall() {
        processes.enter("old", "acme", "shop");
        processes.exit("old");
        advance(IDLE.minusMinutes(10));
        processes.enter("recent", "acme", "shop");
        processes.exit("recent");
        advance(Duration.ofMinutes(10).minusNanos(1));
        assertThat(processes.sweep()).as("one nanosecond short of the idle time").isEmpty();

        advance(Duration.ofNanos(1));

        assertThat(processes.sweep()).containsExactly("old");
        assertThat(ended).containsExactly("old");
        assertThat(processes.list()).extracting(m -> m.get("processId")).containsExactly("recent");
    }

    @Test
    void theSweepLeavesAProcessWhoseCallRunsLongerThanTheIdleTime() {
        processes.enter("busy", "acme", "shop");
        advance(IDLE.multipliedBy(3));

        assertThat(processes.sweep()).isEmpty();

        processes.exit("busy");
        advance(IDLE.minusNanos(1));
        assertThat(processes.sweep()).as("idle counts from the end of the call").isEmpty();
        advance(Duration.ofNanos(1));
        assertThat(processes.sweep()).containsExactly("busy");
    }

    @Test
    void aZeroIdleTimeNeverEndsAProcess() {
        AdminProcesses forever = new AdminProcesses(ended::add, Duration.ZERO, 3, now::get);
        forever.enter("p", "acme", "shop");
        forever.exit("p");
        advance(Duration.ofDays(365));

        assertThat(forever.sweep()).isEmpty();
        assertThat(ended).isEmpty();
    }

    @Test
    void theListingShowsScopeRunningCallsAndIdleSeconds() {
        processes.enter("b", "acme", "shop");
        processes.enter("a", "acme", "web");
        processes.exit("a");
        advance(Duration.ofSeconds(90));

        assertThat(processes.list()).containsExactly(
                Map.of("processId", "a", "tenant", "acme", "project", "web", "runningCalls", 0, "idleSeconds", 90L),
                Map.of("processId", "b", "tenant", "acme", "project", "shop", "runningCalls", 1, "idleSeconds", 0L));
    }

    @Test
    void aCallNamingAProcessBeingEndedWaitsForTheEndThenStartsItAfresh() throws Exception {
        CountDownLatch ending = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AdminProcesses slow = new AdminProcesses(id -> {
            ended.add(id);
            ending.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, IDLE, 3, now::get);
        slow.enter("p", "acme", "shop");
        slow.exit("p");
        CompletableFuture<AdminProcesses.Ended> end = CompletableFuture.supplyAsync(() -> slow.end("p"));
        assertThat(ending.await(30, TimeUnit.SECONDS)).isTrue();

        CompletableFuture<AdminProcesses.Refusal> call = new CompletableFuture<>();
        Thread caller = new Thread(() -> call.complete(slow.enter("p", "acme", "shop")));
        caller.start();
        Await.until("the call waits for the end", () -> caller.getState() == Thread.State.WAITING);
        assertThat(call).isNotDone();

        release.countDown();

        assertThat(end.get(30, TimeUnit.SECONDS)).isEqualTo(AdminProcesses.Ended.ENDED);
        assertThat(call.get(30, TimeUnit.SECONDS)).isNull();
        assertThat(slow.list()).singleElement().satisfies(m -> assertThat(m).containsEntry("runningCalls", 1));
        assertThat(ended).containsExactly("p");
    }

    @Test
    void aFailingEndStillForgetsTheProcessAndReleasesWhoWaits() {
        AdminProcesses failing = new AdminProcesses(id -> {
            throw new IllegalStateException("disk gone");
        }, IDLE, 3, now::get);
        failing.enter("p", "acme", "shop");
        failing.exit("p");

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> failing.end("p")).hasMessage("disk gone");

        assertThat(failing.size()).isZero();
        assertThat(failing.enter("p", "acme", "other")).as("a new process under the same id").isNull();
    }
}
