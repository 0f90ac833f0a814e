package org.vancetope.worktarget.core.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.spi.ErrorCode;

class TransferResultTest {

    @Test
    void aFailureWithoutACodeIsInternalWhateverItsWording() {
        assertThat(new TransferResult("t1", false, 0, null, "hash mismatch", null).code()).isEqualTo(ErrorCode.INTERNAL);
    }

    @Test
    void aSuccessfulOutcomeHasNoCodeAndItsToolResultNoError() {
        TransferResult ok = new TransferResult("t1", true, 5, "sha256:" + "0".repeat(64), null, null);
        assertThat(ok.code()).isNull();
        assertThat(ok.toToolResult()).containsEntry("ok", true).doesNotContainKeys("error", "code");
    }

    @Test
    void aFailedOutcomeCarriesItsCodeInTheToolResult() {
        TransferResult failed = TransferResult.failed(null, ErrorCode.FORBIDDEN, "dirName is not writable");
        assertThat(failed.toToolResult()).containsEntry("ok", false).containsEntry("error", "dirName is not writable")
                .containsEntry("code", "forbidden");
    }

    @Test
    void theGivenCodeIsTheCodeWhateverTheWording() {
        assertThat(TransferResult.failed(null, ErrorCode.PATH_ESCAPE, "dirName not found").code())
                .isEqualTo(ErrorCode.PATH_ESCAPE);
    }
}
