package org.vancetope.worktarget.core.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MediaTypesTest {

    private static byte[] bytes(int... b) {
        byte[] out = new byte[b.length];
        for (int i = 0; i < b.length; i++) {
            out[i] = (byte) b[i];
        }
        return out;
    }

    private static String of(String name, byte[] b) {
        return MediaTypes.of(name, b, b.length);
    }

    @Test
    void pngIsRecognisedByItsSignature() {
        assertThat(of("x.bin", bytes(0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 0))).isEqualTo("image/png");
    }

    @Test
    void jpegAndGifAreRecognisedByTheirSignatures() {
        assertThat(of("x", bytes(0xFF, 0xD8, 0xFF, 0xE0, 0))).isEqualTo("image/jpeg");
        assertThat(of("x", "GIF89a\0\0".getBytes(StandardCharsets.ISO_8859_1))).isEqualTo("image/gif");
    }

    @Test
    void webpNeedsBothRiffAndWebp() {
        assertThat(of("x", "RIFF\0\0\0\0WEBPVP8 ".getBytes(StandardCharsets.ISO_8859_1))).isEqualTo("image/webp");
        assertThat(of("x", "RIFF\0\0\0\0WAVEfmt ".getBytes(StandardCharsets.ISO_8859_1)))
                .isEqualTo(MediaTypes.OCTET_STREAM);
    }

    @Test
    void theSignatureWinsOverTheExtension() {
        assertThat(of("photo.jpg", "%PDF-1.7\n".getBytes(StandardCharsets.US_ASCII))).isEqualTo("application/pdf");
    }

    @Test
    void withoutASignatureTheExtensionDecidesCaseInsensitively() {
        assertThat(of("ICON.ICO", bytes(0, 0, 1, 0))).isEqualTo("image/vnd.microsoft.icon");
    }

    @Test
    void anUnknownBinaryIsAnOctetStream() {
        assertThat(of("data", bytes(1, 0, 2))).isEqualTo(MediaTypes.OCTET_STREAM);
        assertThat(of("noext.", bytes(1, 0, 2))).isEqualTo(MediaTypes.OCTET_STREAM);
    }

    @Test
    void aSignatureLongerThanTheBytesDoesNotMatch() {
        assertThat(MediaTypes.fromSignature(bytes(0x89, 'P', 'N', 'G'), 4)).isNull();
        assertThat(MediaTypes.fromSignature(new byte[0], 0)).isNull();
    }
}
