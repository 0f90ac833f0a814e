package org.vancetope.worktarget.testkit;

import java.util.Objects;
import org.vancetope.worktarget.core.transfer.TransferScheduler;
import org.vancetope.worktarget.testfixtures.ManualTime;

/**
 * The transfer endpoint's scheduler on a {@link ManualTime}: timeouts fire when the test advances time.
 *
 * <pre>{@code
 * ManualTime time = new ManualTime();
 * TransferEndpoint ep = TransferEndpoint.builder(TransferSide.FOOT)
 *         .clock(time.clock()).scheduler(ManualTransferScheduler.on(time)).resolver(r).build();
 * time.advance(Duration.ofSeconds(31));   // fires the 30 s phase timeout
 * }</pre>
 */
public final class ManualTransferScheduler {
    private ManualTransferScheduler() {
    }

    /**
     * A scheduler whose tasks wait on the given time.
     *
     * @param time the time
     * @return the scheduler
     */
    public static TransferScheduler on(ManualTime time) {
        Objects.requireNonNull(time, "time");
        return (delay, task) -> time.schedule(delay, task)::cancel;
    }
}
