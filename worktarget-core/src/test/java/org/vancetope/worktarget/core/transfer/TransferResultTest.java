package org.vancetope.worktarget.core.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.vancetope.worktarget.spi.ErrorCode;

class TransferResultTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "dirName not found|NOT_FOUND",
        "hash mismatch|HASH_MISMATCH",
        "disk_full: the receiving disk has 10 bytes free and the file needs 20|DISK_FULL",
        "exceeds size limit (20 bytes > maxUploadSize 10 bytes)|SIZE_LIMIT",
        "more bytes than the announced totalSize 10|SIZE_LIMIT",
        "chunk timeout|TIMEOUT",
        "init timeout|TIMEOUT",
        "connection closed while sending|OFFLINE",
        "receiver is shutting down|OFFLINE",
        "sender aborted the transfer|CANCELLED",
        "invalid attrs: bad mode|INVALID_PARAMS",
        "Path '../x' leads outside the work directory (through '..'). Use a path inside.|PATH_ESCAPE",
        "File 'a.txt' does not exist. Call file_list.|NOT_FOUND",
        "something nobody expected|INTERNAL"})
    void aReasonInTheProtocolsWordingGetsItsCode(String reason, ErrorCode code) {
        assertThat(TransferResult.failed("t1", reason).code()).isEqualTo(code);
    }

    @Test
    void aSuccessfulOutcomeHasNoCodeAndItsToolResultNoError() {
        TransferResult ok = new TransferResult("t1", true, 5, "sha256:" + "0".repeat(64), null);
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
    void aGivenCodeWinsOverTheWording() {
        assertThat(TransferResult.failed(null, ErrorCode.PATH_ESCAPE, "dirName not found").code())
                .isEqualTo(ErrorCode.PATH_ESCAPE);
    }
}
