package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;

/**
 * A forwarded call whose delivery went wrong in the fleet's store: a send that failed (the store stopped
 * answering; the message may be on its socket and be delivered when it answers again) is reported as "may or
 * may not have run", never "did not run"; and a call that arrives at the holding node after its timeout (held
 * up in a frozen store) is dropped there, not run long after its caller gave up on it.
 */
class FleetRouterDeliveryTest {
    private static final DaemonKey BOX = new DaemonKey("acme", "proj", "box");
    private static final ToolContext CTX = new ToolContext("p1", null, "acme", "proj", null);

    private final FakeFleetLink store = new FakeFleetLink(Duration.ofSeconds(30));
    private FleetRouter router;

    @BeforeEach
    void start() throws IOException {
        router = new FleetRouter(store, new PeerRegistry(), new Ids(), 1 << 20);
        router.start();
    }

    @AfterEach
    void stop() {
        router.close();
    }

    @Test
    void aCallWhoseSendFailedMayOrMayNotHaveRun() {
        store.sendFailure = new IOException("Command timed out after 2 second(s)");

        assertThatThrownBy(() -> router.find(BOX).orElseThrow().invoke("client_file_write",
                Map.of("path", "a", "content", "x"), CTX, Duration.ofSeconds(60)))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.OFFLINE);
                    assertThat(e.getMessage()).contains("may or may not have run", "Command timed out",
                            "Check its effect").doesNotContain("did not run");
                });
    }

    /** An invocation of {@code client_file_list} from node "other" for "box", sent {@code agoMs} ago. */
    private static String invoke(long agoMs, long timeoutMs) {
        String header = "{\"op\":\"invoke\",\"from\":\"other\",\"tenant\":\"acme\",\"project\":\"proj\","
                + "\"daemon\":\"box\",\"sentAt\":" + (System.currentTimeMillis() - agoMs) + "}";
        return header + "\n" + Wire.encodeToString(new Message.Invoke("fw-1", "client_file_list", Map.of(),
                timeoutMs, CTX));
    }

    @Test
    void aForwardedCallThatArrivesPastItsTimeoutIsDroppedNotRun() {
        router.onMessage(invoke(60_000 + FleetRouter.MAX_CLOCK_SKEW.toMillis() + 1_000, 60_000));

        assertThat(store.sent).as("no answer: the call was not looked at").isEmpty();
    }

    @Test
    void aForwardedCallWithinItsTimeoutIsHandled() {
        router.onMessage(invoke(1_000, 60_000));

        // "box" is not connected here: the holding node answers "not here", which shows the call was handled
        assertThat(store.sent).singleElement().asString().contains("\"op\":\"result\"", "no longer connected");
    }

    @Test
    void aForwardedCallWithoutASendTimeFromAnOlderNodeIsHandled() {
        String old = invoke(0, 60_000).replaceFirst(",\"sentAt\":[0-9]+", "");

        router.onMessage(old);

        assertThat(store.sent).hasSize(1);
    }
}
