package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class Utf8Test {

    private static boolean valid(byte... bytes) {
        return Utf8.isValid(Unpooled.wrappedBuffer(bytes));
    }

    private static byte[] hex(String hex) {
        byte[] b = new byte[hex.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        return b;
    }

    private static boolean jdkAccepts(byte[] bytes) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    @Test
    void emptyAndAsciiAreValid() {
        assertThat(valid()).isTrue();
        assertThat(valid("{\"type\":\"transfer_chunk\",\"bytes\":\"QUJD\"}".getBytes(StandardCharsets.US_ASCII))).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"C2A9", "E282AC", "F09F9A80", "EFBFBF", "F48FBFBF", "E0A080", "ED9FBF", "EE8080"})
    void wellFormedMultiByteSequencesAreValid(String hex) {
        assertThat(valid(hex(hex))).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "80",           // lone continuation byte
        "C0AE",         // overlong '.'
        "C1BF",         // overlong
        "E08080",       // overlong 3-byte
        "F0808080",     // overlong 4-byte
        "EDA080",       // surrogate U+D800
        "EDBFBF",       // surrogate U+DFFF
        "F4908080",     // above U+10FFFF
        "F5808080",     // invalid lead byte
        "FF",           // invalid byte
        "C2",           // truncated at the end
        "E282",         // truncated at the end
        "F09F9A",       // truncated at the end
        "C241",         // missing continuation
        "E28241"        // missing second continuation
    })
    void malformedSequencesAreInvalid(String hex) {
        assertThat(valid(hex(hex))).isFalse();
    }

    @Test
    void aBadByteIsFoundAtEveryPositionOfALongAsciiRun() {
        byte[] ascii = new byte[100];
        java.util.Arrays.fill(ascii, (byte) 'A');
        for (int i = 0; i < ascii.length; i++) {
            byte[] b = ascii.clone();
            b[i] = (byte) 0xFF;
            assertThat(valid(b)).as("bad byte at %d", i).isFalse();
        }
    }

    @Test
    void onlyTheReadableBytesAreChecked() {
        ByteBuf buf = Unpooled.wrappedBuffer(hex("FF41424344FF"));
        buf.readerIndex(1).writerIndex(5);
        assertThat(Utf8.isValid(buf)).isTrue();
        assertThat(buf.readerIndex()).isEqualTo(1);
    }

    @Test
    void directBuffersAreCheckedLikeHeapBuffers() {
        ByteBuf direct = Unpooled.directBuffer().writeBytes("ok \u20ac".getBytes(StandardCharsets.UTF_8));
        try {
            assertThat(Utf8.isValid(direct)).isTrue();
            direct.writeByte(0xE2);
            assertThat(Utf8.isValid(direct)).isFalse();
        } finally {
            direct.release();
        }
    }

    @Test
    void aSequenceSplitAcrossTheComponentsOfAnAggregatedFrameIsValid() {
        byte[] euro = hex("E282AC");
        ByteBuf composite = Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(new byte[] {'a', euro[0]}),
                Unpooled.wrappedBuffer(new byte[] {euro[1], euro[2], 'b'}));
        assertThat(Utf8.isValid(composite)).isTrue();
        ByteBuf broken = Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(new byte[] {'a', euro[0]}),
                Unpooled.wrappedBuffer(new byte[] {euro[1], 'b'}));
        assertThat(Utf8.isValid(broken)).isFalse();
    }

    @Test
    void aBadByteAfterAnEarlyMultiByteCharacterIsStillFound() {
        byte[] b = ("\u00e9" + "A".repeat(200) + "?").getBytes(StandardCharsets.UTF_8);
        assertThat(valid(b)).isTrue();
        b[b.length - 1] = (byte) 0x80;
        assertThat(valid(b)).isFalse();
    }

    @Test
    void agreesWithTheJdksStrictDecoderOnRandomInput() {
        Random random = new Random(42);
        byte[] alphabet = hex("00417F80BFC0C1C2DFE0E1ECEDEEEFF0F1F3F4F5FF9FA08F90");
        for (int round = 0; round < 20_000; round++) {
            byte[] b = new byte[random.nextInt(24)];
            for (int i = 0; i < b.length; i++) {
                b[i] = random.nextInt(3) == 0 ? (byte) random.nextInt(256) : alphabet[random.nextInt(alphabet.length)];
            }
            assertThat(valid(b)).as("bytes %s", java.util.HexFormat.of().formatHex(b)).isEqualTo(jdkAccepts(b));
        }
    }

    @Test
    void agreesWithTheJdkOnLongMostlyAsciiInputWhereTheWideChecksRun() {
        Random random = new Random(44);
        byte[] odd = hex("80BFC0C2DFE0E282ACEDF0F4F5FF");
        for (int round = 0; round < 20_000; round++) {
            byte[] b = new byte[random.nextInt(160)];
            for (int i = 0; i < b.length; i++) {
                b[i] = (byte) ('a' + random.nextInt(26));
            }
            for (int k = random.nextInt(3); k > 0 && b.length > 0; k--) {
                b[random.nextInt(b.length)] = odd[random.nextInt(odd.length)];
            }
            assertThat(valid(b)).as("bytes %s", java.util.HexFormat.of().formatHex(b)).isEqualTo(jdkAccepts(b));
        }
    }

    @Test
    void aCharacterAcrossTheEdgeOfA32ByteBlockIsValid() {
        for (int at = 28; at <= 34; at++) {
            byte[] b = ("A".repeat(at) + "\u20ac" + "B".repeat(70)).getBytes(StandardCharsets.UTF_8);
            assertThat(valid(b)).as("euro sign at %d", at).isTrue();
        }
    }

    @Test
    void agreesWithTheJdkOnRandomValidText() {
        Random random = new Random(43);
        for (int round = 0; round < 2_000; round++) {
            StringBuilder sb = new StringBuilder();
            int n = random.nextInt(40);
            for (int i = 0; i < n; i++) {
                int cp = random.nextInt(4) == 0 ? random.nextInt(0x80) : random.nextInt(0x110000);
                if (cp >= 0xD800 && cp <= 0xDFFF) {
                    cp = 'x';
                }
                sb.appendCodePoint(cp);
            }
            assertThat(valid(sb.toString().getBytes(StandardCharsets.UTF_8))).isTrue();
        }
    }
}
