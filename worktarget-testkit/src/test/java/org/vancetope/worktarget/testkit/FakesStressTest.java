package org.vancetope.worktarget.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.core.ToolInvocation;
import org.vancetope.worktarget.core.WorkTarget;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.SessionKey;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.testfixtures.Await;
import org.vancetope.worktarget.testfixtures.ManualTime;

/**
 * The strict fakes' own bookkeeping under concurrency: a fake that reports a leak that is not there
 * (or misses one) fails someone else's build. Each test hammers one fake from several threads and
 * then checks that its counters, records and teardown checks are exact. Bounded by counts, not time.
 */
class FakesStressTest {
    private static final ToolContext CTX = new ToolContext("p1", "s1", "acme", "proj", null);
    private static final int THREADS = 4;

    private final ExecutorService pool = Executors.newFixedThreadPool(THREADS);

    @AfterEach
    void tearDown() throws InterruptedException {
        pool.shutdownNow();
        assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }

    private void onEveryThread(int perThread, ThrowingTask task) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            futures.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < perThread; i++) {
                    task.run(thread, i);
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : futures) {
            f.get(120, TimeUnit.SECONDS);
        }
    }

    @FunctionalInterface
    private interface ThrowingTask {
        void run(int thread, int i) throws Exception;
    }

    private static BackendTool quick(String name) {
        return BackendTool.of(ToolCatalog.backend(name).orElseThrow(), (p, c) -> {
            if (ThreadLocalRandom.current().nextInt(4) == 0) {
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt(); // cancelled: stop at once, as a well-behaved tool does
                }
            }
            return Map.of("ok", true);
        });
    }

    @Test
    void thePeersFakeReportsNoLeakWhenCallsTimeOutBeforeOrWhileTheyRun() throws Exception {
        DaemonKey key = new DaemonKey("acme", "proj", "box");
        FakePeers daemons = new FakePeers().daemon(key, List.of(quick("client_file_read")));
        AtomicInteger timedOut = new AtomicInteger();
        AtomicInteger answered = new AtomicInteger();
        onEveryThread(500, (t, i) -> {
            // 1 ns: the call gives up before its task can start; 1 ms: sometimes while it runs
            Duration timeout = i % 2 == 0 ? Duration.ofNanos(1) : Duration.ofMillis(1 + i % 3);
            try {
                daemons.find(key).orElseThrow().invoke("client_file_read", Map.of(), CTX, timeout);
                answered.incrementAndGet();
            } catch (ToolException e) {
                assertThat(e.code()).isEqualTo(ErrorCode.TIMEOUT);
                timedOut.incrementAndGet();
            }
        });
        assertThat(timedOut.get() + answered.get()).isEqualTo(THREADS * 500);
        assertThat(timedOut.get()).as("the run had calls that gave up").isPositive();
        assertThat(daemons.calls()).hasSize(THREADS * 500);
        daemons.close(); // no false leak
    }

    @Test
    void thePeersFakeCountsEveryCallInAndOutUnderConcurrentCallsAndReconnects() throws Exception {
        SessionKey s1 = new SessionKey("acme", "s1");
        FakePeers clients = new FakePeers().client("acme", "s1", List.of(quick("client_file_read")));
        AtomicInteger offline = new AtomicInteger();
        onEveryThread(500, (t, i) -> {
            if (t == 0 && i % 50 == 0) {
                clients.disconnect(s1);
                clients.client("acme", "s1", List.of(quick("client_file_read")));
            }
            try {
                clients.find(s1).orElseThrow(() -> new ToolException(ErrorCode.OFFLINE, "between connections"))
                        .invoke("client_file_read", Map.of(), CTX, Duration.ofSeconds(5));
            } catch (ToolException e) {
                assertThat(e.code()).isEqualTo(ErrorCode.OFFLINE);
                offline.incrementAndGet();
            }
        });
        assertThat(clients.calls().size() + offline.get()).isGreaterThanOrEqualTo(THREADS * 500);
        clients.close();
    }

    @Test
    void theProcessStoreKeepsEveryWriteAndHandsOutConsistentSnapshotsUnderConcurrentWriters() throws Exception {
        InMemoryProcessStore store = new InMemoryProcessStore();
        store.process("p1").tenant("acme").project("proj").session("s1").add();
        onEveryThread(1_000, (t, i) -> {
            store.putEngineParam("p1", "k-" + t + "-" + i, i);
            Map<String, Object> snapshot = store.find("p1").orElseThrow().engineParams();
            assertThat(snapshot).containsKey("k-" + t + "-" + i);
        });
        assertThat(store.find("p1").orElseThrow().engineParams()).hasSize(THREADS * 1_000);
        assertThat(store.writeCount()).isEqualTo(THREADS * 1_000L);
    }

    @Test
    void theRecordingListenerKeepsEveryEventAndStaysBalancedUnderConcurrentCalls() throws Exception {
        RecordingListener listener = new RecordingListener();
        onEveryThread(1_000, (t, i) -> {
            ToolInvocation call = new ToolInvocation("file_read", WorkTarget.work("w" + t), "work_file_read",
                    Map.of("path", "a" + i), CTX);
            listener.callStarted(call);
            if (i % 2 == 0) {
                listener.callFinished(call, Duration.ofMillis(1), Map.of());
            } else {
                listener.callFailed(call, Duration.ofMillis(1), new ToolException(ErrorCode.INTERNAL, "x"));
            }
        });
        assertThat(listener.events()).hasSize(THREADS * 2_000);
        listener.assertBalanced();
    }

    @Test
    void manualTimeRunsEveryDueTaskExactlyOnceAndNeverGoesBackUnderConcurrentAdvances() throws Exception {
        ManualTime time = new ManualTime();
        Instant start = time.now();
        Map<Integer, AtomicInteger> runs = new ConcurrentHashMap<>();
        int tasks = 4_000;
        for (int i = 0; i < tasks; i++) {
            AtomicInteger count = new AtomicInteger();
            runs.put(i, count);
            time.schedule(Duration.ofMillis(i % 1_000), count::incrementAndGet);
        }
        List<Instant> seen = Collections.synchronizedList(new ArrayList<>());
        onEveryThread(250, (t, i) -> {
            Instant before = time.now();
            time.advance(Duration.ofMillis(1));
            Instant after = time.now();
            assertThat(after).as("time never goes back").isAfterOrEqualTo(before);
            seen.add(after);
        });
        assertThat(time.now()).isEqualTo(start.plusMillis(THREADS * 250L));
        assertThat(runs.values()).allSatisfy(c -> assertThat(c.get()).isEqualTo(1));
        assertThat(time.pendingTasks()).isEmpty();
    }

    @Test
    void aThreadedFramePairDeliversEveryFrameExactlyOnceAndInOrderPerSender() throws Exception {
        Map<Integer, List<Integer>> received = new ConcurrentHashMap<>();
        AtomicInteger total = new AtomicInteger();
        try (InMemoryFramePair<int[]> pair = InMemoryFramePair.<int[]>builder().threaded().highWaterMark(1_000_000)
                .build()) {
            pair.right().onReceive(f -> {
                received.computeIfAbsent(f[0], k -> Collections.synchronizedList(new ArrayList<>())).add(f[1]);
                total.incrementAndGet();
            });
            onEveryThread(2_000, (t, i) -> pair.left().send(new int[] {t, i}).toCompletableFuture()
                    .get(60, TimeUnit.SECONDS));
            // a send completes when its frame is taken off the queue, like a socket write, not when the receiver
            // has handled it: the last frames may still be in the receiver's hands
            Await.until("every frame is delivered", () -> total.get() >= THREADS * 2_000);
            assertThat(total.get()).isEqualTo(THREADS * 2_000);
            pair.assertNoFailures();
        }
        for (int t = 0; t < THREADS; t++) {
            List<Integer> mine = received.get(t);
            assertThat(mine).hasSize(2_000);
            for (int i = 0; i < mine.size(); i++) {
                assertThat(mine.get(i)).isEqualTo(i);
            }
        }
    }
}
