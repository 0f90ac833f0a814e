package org.vancetope.worktarget.core.internal.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.transfer.IllegalTransitionException;

class TransitionTablesTest {

    @Test
    void illegalTransitionCarriesFromAndTo() {
        assertThatThrownBy(() -> ReceiverState.TABLE.check(ReceiverState.VERIFIED, ReceiverState.RECEIVING))
                .isInstanceOfSatisfying(IllegalTransitionException.class, e -> {
                    assertThat(e.from()).isEqualTo(ReceiverState.VERIFIED);
                    assertThat(e.to()).isEqualTo(ReceiverState.RECEIVING);
                    assertThat(e.getMessage()).contains("VERIFIED -> RECEIVING");
                });
    }

    @Test
    void terminalStatesHaveNoExits() {
        for (SenderState s : SenderState.values()) {
            assertThat(SenderState.TABLE.allows(SenderState.FINISHED, s)).isFalse();
        }
        for (ReceiverState s : ReceiverState.values()) {
            assertThat(ReceiverState.TABLE.allows(ReceiverState.CLOSED, s)).isFalse();
        }
    }

    @Test
    void everyNonTerminalStateCanEnd() {
        for (SenderState s : SenderState.values()) {
            if (s != SenderState.FINISHED) {
                assertThat(SenderState.TABLE.allows(s, SenderState.FINISHED)).as(s.name()).isTrue();
            }
        }
        for (ReceiverState s : ReceiverState.values()) {
            if (s != ReceiverState.CLOSED) {
                assertThat(ReceiverState.TABLE.allows(s, ReceiverState.CLOSED)).as(s.name()).isTrue();
            }
        }
    }

    @Test
    void aVerifiedTransferCannotFailAnyMore() {
        assertThat(ReceiverState.TABLE.targets(ReceiverState.VERIFIED)).containsExactly(ReceiverState.CLOSED);
    }

    @Test
    void senderCannotStreamBeforeTheInitResponse() {
        assertThat(SenderState.TABLE.allows(SenderState.PREPARING, SenderState.STREAMING)).isFalse();
        assertThat(SenderState.TABLE.allows(SenderState.AWAITING_COMPLETE, SenderState.STREAMING)).isFalse();
    }

    @Test
    void wellFormedHashesAreRecognised() {
        assertThat(Sha256.isWellFormed("sha256:" + "aB".repeat(32))).isTrue();
        assertThat(Sha256.isWellFormed("sha256:" + "a".repeat(63))).isFalse();
        assertThat(Sha256.isWellFormed("SHA256:" + "a".repeat(64))).isFalse();
        assertThat(Sha256.isWellFormed(null)).isFalse();
    }
}
