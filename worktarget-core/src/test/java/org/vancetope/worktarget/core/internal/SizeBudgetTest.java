package org.vancetope.worktarget.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.testfixtures.ManualTime;

class SizeBudgetTest {
    private static final Duration MEASURE = Duration.ofMinutes(1);
    private static final Duration RECHECK = Duration.ofSeconds(2);

    private final ManualTime time = new ManualTime();
    /** What the directories of each key "hold" now. */
    private final Map<String, Long> disk = new HashMap<>();
    private final Map<String, Integer> walks = new HashMap<>();

    private SizeBudget<String> budget(long max) {
        return new SizeBudget<>(max, MEASURE, RECHECK, time.clock(), k -> {
            walks.merge(k, 1, Integer::sum);
            return disk.getOrDefault(k, 0L);
        });
    }

    @Test
    void aCallThatStaysWithinTheBudgetFits() {
        SizeBudget<String> b = budget(1000);
        disk.put("p", 400L);

        assertThat(b.fits("p", 600)).isTrue();
        assertThat(b.usage("p", 0)).isEqualTo(400);
    }

    @Test
    void aCallThatWouldGoOverTheBudgetDoesNotFit() {
        SizeBudget<String> b = budget(1000);
        disk.put("p", 400L);

        assertThat(b.fits("p", 601)).isFalse();
    }

    @Test
    void aKeyAlreadyOverTheBudgetFitsNothingNotEvenAnEmptyCall() {
        SizeBudget<String> b = budget(1000);
        disk.put("p", 1001L);

        assertThat(b.fits("p", 0)).isFalse();
    }

    @Test
    void aFigureThatFitsIsTrustedForTheMeasureInterval() {
        SizeBudget<String> b = budget(1000);
        disk.put("p", 100L);
        b.fits("p", 0);
        disk.put("p", 5000L);                         // a job wrote, unseen
        time.advance(MEASURE.minusSeconds(1));

        assertThat(b.fits("p", 0)).isTrue();
        assertThat(walks.get("p")).isEqualTo(1);

        time.advance(Duration.ofSeconds(1));
        assertThat(b.fits("p", 0)).isFalse();
        assertThat(walks.get("p")).isEqualTo(2);
    }

    @Test
    void chargedBytesCountUntilTheNextMeasurement() {
        SizeBudget<String> b = budget(1000);
        disk.put("p", 100L);
        b.fits("p", 500);
        b.charge("p", 500);

        assertThat(b.usage("p", 0)).isEqualTo(600);
        assertThat(b.fits("p", 400)).isTrue();
    }

    @Test
    void aNegativeChargeCountsBytesFreedButNeverBelowNothing() {
        SizeBudget<String> b = budget(1000);
        disk.put("p", 900L);
        b.fits("p", 0);
        b.charge("p", -600);

        assertThat(b.usage("p", 0)).isEqualTo(300);
        b.charge("p", -5000);
        assertThat(b.usage("p", 0)).isZero();
    }

    @Test
    void aRefusalOnChargedBytesIsCheckedByMeasuringOnceTheRecheckIntervalPassed() {
        SizeBudget<String> b = budget(1000);
        disk.put("p", 100L);
        b.fits("p", 800);
        b.charge("p", 800);                           // the same file overwritten: the disk still holds 100
        time.advance(RECHECK);

        assertThat(b.fits("p", 800)).isTrue();
        assertThat(walks.get("p")).isEqualTo(2);
    }

    @Test
    void aRefusingFigureIsTrustedForTheRecheckIntervalOnly() {
        SizeBudget<String> b = budget(1000);
        disk.put("p", 2000L);
        assertThat(b.fits("p", 0)).isFalse();
        disk.put("p", 10L);                           // the caller cleaned up

        time.advance(RECHECK.minusMillis(1));
        assertThat(b.fits("p", 0)).isFalse();
        assertThat(walks.get("p")).isEqualTo(1);

        time.advance(Duration.ofMillis(1));
        assertThat(b.fits("p", 0)).isTrue();
        assertThat(walks.get("p")).isEqualTo(2);
    }

    @Test
    void keysHaveTheirOwnFigures() {
        SizeBudget<String> b = budget(1000);
        disk.put("full", 5000L);
        disk.put("empty", 0L);

        assertThat(b.fits("full", 0)).isFalse();
        assertThat(b.fits("empty", 1000)).isTrue();
    }

    @Test
    void aForgottenKeyIsMeasuredAgainAtItsNextCall() {
        SizeBudget<String> b = budget(1000);
        disk.put("p", 5000L);
        b.fits("p", 0);
        disk.put("p", 0L);
        b.forget("p");

        assertThat(b.fits("p", 0)).isTrue();
    }

    @Test
    void aBudgetOfZeroIsOffAndMeasuresNothing() {
        SizeBudget<String> b = budget(0);
        disk.put("p", Long.MAX_VALUE);

        assertThat(b.fits("p", Long.MAX_VALUE)).isTrue();
        assertThat(b.usage("p", 0)).isZero();
        assertThat(walks).isEmpty();
    }

    @Test
    void hugeChargesAndAddsDoNotOverflowIntoFitting() {
        SizeBudget<String> b = budget(1000);
        b.fits("p", 0);
        b.charge("p", Long.MAX_VALUE);
        b.charge("p", Long.MAX_VALUE);

        assertThat(b.usage("p", 0)).isEqualTo(Long.MAX_VALUE);
        assertThat(b.fits("p", 0)).isFalse();
        assertThat(budget(1000).fits("q", Long.MAX_VALUE)).isFalse();
    }

    @Test
    void chargesBeforeTheFirstMeasurementAreNotLostTheWalkSeesTheirBytes() {
        SizeBudget<String> b = budget(1000);
        b.charge("p", 700);                           // no figure yet: nothing to add to
        disk.put("p", 700L);

        assertThat(b.usage("p", 0)).isEqualTo(700);
    }

    @Test
    void measuringOneKeyDoesNotHoldUpAnother() throws Exception {
        CountDownLatch walking = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        SizeBudget<String> b = new SizeBudget<>(1000, MEASURE, RECHECK, time.clock(), k -> {
            if (k.equals("slow")) {
                walking.countDown();
                try {
                    finish.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return 10;
        });
        Thread slow = new Thread(() -> b.usage("slow", 0));
        slow.start();
        try {
            assertThat(walking.await(1, TimeUnit.MINUTES)).isTrue();

            assertThat(b.usage("quick", 0)).isEqualTo(10);
        } finally {
            finish.countDown();
            slow.join();
        }
    }

    @Test
    void pastTheMostKeysTheFiguresOlderThanTheMeasureIntervalAreDropped() {
        SizeBudget<String> b = budget(1000);
        for (int i = 0; i <= SizeBudget.MAX_KEYS; i++) {
            b.usage("k" + i, 0);
        }
        time.advance(MEASURE);

        b.usage("recent", 0);                                  // drops the figures a measure interval old
        b.usage("fresh", 0);

        assertThat(b.keys()).isEqualTo(2);                     // "recent" and "fresh"
        assertThat(b.usage("recent", 0)).isZero();
        assertThat(walks.get("recent")).isEqualTo(1);
    }

    @Test
    void theOldFiguresAreLookedForAtMostOncePerMeasureInterval() {
        SizeBudget<String> b = budget(1000);
        for (int i = 0; i <= SizeBudget.MAX_KEYS; i++) {
            b.usage("k" + i, 0);
        }
        time.advance(MEASURE.minusSeconds(1));
        b.usage("x", 0);                                       // looks, finds none old enough
        time.advance(Duration.ofSeconds(1));

        b.usage("y", 0);                                       // too soon to look again
        assertThat(b.keys()).isEqualTo(SizeBudget.MAX_KEYS + 3);

        time.advance(MEASURE.minusSeconds(1));
        b.usage("z", 0);
        assertThat(b.keys()).as("the k's and x are a measure interval old by now; y and z are not").isEqualTo(2);
    }

    @Test
    void aNegativeBudgetOrAnIntervalThatIsNotPositiveIsRefused() {
        assertThatThrownBy(() -> new SizeBudget<String>(-1, MEASURE, RECHECK, time.clock(), k -> 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0 (off) or more");
        assertThatThrownBy(() -> new SizeBudget<String>(1, Duration.ZERO, RECHECK, time.clock(), k -> 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("positive");
        assertThatThrownBy(() -> new SizeBudget<String>(1, MEASURE, Duration.ofSeconds(-1), time.clock(), k -> 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("positive");
    }
}
