package org.vancetope.worktarget.core.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class TransferSettingsTest {

    @Test
    void defaultsAreTheSpecValues() {
        TransferSettings s = TransferSettings.defaults();
        assertThat(s.chunkSize()).isEqualTo(64 * 1024);
        assertThat(s.maxUploadSize()).isEqualTo(100L * 1024 * 1024);
        assertThat(s.maxDownloadSize()).isEqualTo(100L * 1024 * 1024);
        assertThat(s.brainModeMask()).isEqualTo(0644);
        assertThat(s.footModeMask()).isEqualTo(0755);
        assertThat(s.phaseTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.cleanupInterval()).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void chunkSizeAboveTheHardLimitIsRejected() {
        assertThatThrownBy(() -> TransferSettings.builder().chunkSize(TransferSettings.HARD_MAX_CHUNK_BYTES + 1).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("chunkSize");
    }

    @Test
    void modeMaskWithSpecialBitsIsRejected() {
        assertThatThrownBy(() -> TransferSettings.builder().footModeMask(04755).build())
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void zeroTimeoutIsRejected() {
        assertThatThrownBy(() -> TransferSettings.builder().phaseTimeout(Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("phaseTimeout");
    }

    @Test
    void toBuilderKeepsEverySetting() {
        TransferSettings s = TransferSettings.builder().chunkSize(1000).maxUploadSize(5).maxDownloadSize(6)
                .brainModeMask(0600).footModeMask(0700).phaseTimeout(Duration.ofSeconds(3))
                .cleanupInterval(Duration.ofSeconds(4)).maxChunksInFlight(2).syncBeforeCommit(false).build();
        assertThat(s.toBuilder().build().toString()).isEqualTo(s.toString()).contains("syncBeforeCommit=false");
    }

    @Test
    void toBuilderOfSettingsWithoutCapabilitiesKeepsThemEmpty() {
        TransferSettings none = TransferSettings.defaults().toBuilder().capabilities(java.util.Set.of()).build();
        assertThat(none.toBuilder().maxUploadSize(1000).build().capabilities()).isEmpty();
    }

    @Test
    void theCompressionLevelIsZstdsDefaultThree() {
        assertThat(TransferSettings.defaults().compressionLevel()).isEqualTo(3);
    }

    @Test
    void compressionLevelsFromOneToNineteenAreAccepted() {
        assertThat(TransferSettings.builder().compressionLevel(1).build().compressionLevel()).isEqualTo(1);
        assertThat(TransferSettings.builder().compressionLevel(19).build().compressionLevel()).isEqualTo(19);
    }

    @Test
    void compressionLevelsOutsideOneToNineteenAreRejected() {
        for (int level : new int[] {0, -1, 20, 22}) {
            assertThatThrownBy(() -> TransferSettings.builder().compressionLevel(level).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("compressionLevel must be between 1 and 19 (zstd levels), got " + level);
        }
    }

    @Test
    void toBuilderKeepsTheCompressionLevel() {
        TransferSettings s = TransferSettings.builder().compressionLevel(9).build();
        assertThat(s.toBuilder().build().compressionLevel()).isEqualTo(9);
        assertThat(s.toString()).contains("compressionLevel=9");
    }

    @Test
    void withZstdJniPresentEveryCapabilityIsOfferedByDefault() {
        // worktarget-core's tests have the optional zstd-jni on their class path
        assertThat(TransferSettings.defaults().capabilities()).containsExactlyInAnyOrder(TransferCapability.values());
    }

    @Test
    void receivedFilesAreSyncedBeforeTheRenameByDefault() {
        assertThat(TransferSettings.defaults().syncBeforeCommit()).isTrue();
    }

    @Test
    void sidePicksLimitAndMask() {
        TransferSettings s = TransferSettings.builder().maxUploadSize(1).maxDownloadSize(2).build();
        assertThat(TransferSide.BRAIN.receiveLimit(s)).isEqualTo(1);
        assertThat(TransferSide.FOOT.receiveLimit(s)).isEqualTo(2);
        assertThat(TransferSide.BRAIN.modeMask(s)).isEqualTo(0644);
        assertThat(TransferSide.FOOT.modeMask(s)).isEqualTo(0755);
    }

    @Test
    void attrsParseOctalModeAndInstant() {
        TransferAttrs a = new TransferAttrs("0755", "2026-05-01T14:23:11Z");
        assertThat(a.modeBits()).contains(0755);
        assertThat(a.mtimeInstant()).isPresent();
        assertThatThrownBy(() -> new TransferAttrs("0999", null).modeBits()).isInstanceOf(IllegalArgumentException.class);
        assertThat(new TransferAttrs("0644", null).overriddenBy(new TransferAttrs(null, "x")))
                .isEqualTo(new TransferAttrs("0644", "x"));
    }
}
