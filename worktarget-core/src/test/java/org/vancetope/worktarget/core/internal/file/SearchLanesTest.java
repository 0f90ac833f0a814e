package org.vancetope.worktarget.core.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The search threads are named for this library and end when their engine closes, instead of lingering
 * for the pool's keep-alive with a generic name after the backend that made them was closed.
 */
class SearchLanesTest {
    private static Thread runOn(SearchLanes lanes) {
        AtomicReference<Thread> ran = new AtomicReference<>();
        lanes.run(CallDeadline.start("file_grep", 60_000), ForkJoinTask.adapt(() -> ran.set(Thread.currentThread())));
        return ran.get();
    }

    @Test
    void aSearchRunsOnAThreadNamedForTheLibrary() {
        SearchLanes lanes = new SearchLanes(2);
        try {
            assertThat(runOn(lanes).getName()).startsWith("worktarget-search-");
        } finally {
            lanes.close();
        }
    }

    @Test
    void closingEndsTheIdleLanesThreadsAndLaterCallsStillRun() throws Exception {
        SearchLanes lanes = new SearchLanes(2);
        Thread worker = runOn(lanes);
        assertThat(lanes.idle()).as("kept for the next call").isEqualTo(1);

        lanes.close();

        assertThat(lanes.idle()).isZero();
        worker.join(60_000);
        assertThat(worker.isAlive()).as("the idle lane's thread ended").isFalse();
        Thread after = runOn(lanes);
        assertThat(after).isNotNull();
        assertThat(lanes.idle()).as("a lane used after close is not kept").isZero();
        after.join(60_000);
        assertThat(after.isAlive()).isFalse();
    }
}
