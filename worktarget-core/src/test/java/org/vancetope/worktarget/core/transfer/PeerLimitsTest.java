package org.vancetope.worktarget.core.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PeerLimitsTest {

    @Test
    void noneLeavesEveryOwnSettingAlone() {
        assertThat(PeerLimits.NONE.maxChunkBytes()).isEqualTo(Integer.MAX_VALUE);
        assertThat(PeerLimits.NONE.maxFileSize()).isEqualTo(Long.MAX_VALUE);
        assertThat(PeerLimits.NONE.maxFileSizeName()).isNull();
    }

    @Test
    void aChunkLimitBelowOneByteIsRefused() {
        assertThatThrownBy(() -> new PeerLimits(0, 10, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxChunkBytes");
    }

    @Test
    void aNegativeFileLimitIsRefused() {
        assertThatThrownBy(() -> new PeerLimits(1, -1, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxFileSize");
    }
}
