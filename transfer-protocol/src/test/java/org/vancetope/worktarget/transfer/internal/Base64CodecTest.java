package org.vancetope.worktarget.transfer.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Both paths (the portable codec of Java 17 to 20 and the JDK's of Java 21 on) are checked against
 * {@link Base64#getEncoder()} and {@link Base64#getDecoder()} on every runtime; the public methods,
 * which pick one of the two, too.
 */
class Base64CodecTest {
    private static final Random RANDOM = new Random(20261130);

    private static byte[] random(int n) {
        byte[] b = new byte[n];
        RANDOM.nextBytes(b);
        return b;
    }

    private static byte[] portableEncode(byte[] src) {
        ByteBuffer dst = ByteBuffer.allocate(Base64Codec.encodedLength(src.length));
        Base64Codec.encodePortable(src, dst);
        assertThat(dst.hasRemaining()).isFalse();
        return dst.array();
    }

    /** What the JDK decodes, or null when it refuses. */
    private static byte[] jdkDecode(byte[] chars) {
        try {
            return Base64.getDecoder().decode(chars);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void encodesLikeTheJdkForEveryLengthUpTo300() {
        for (int n = 0; n <= 300; n++) {
            byte[] src = random(n);
            assertThat(portableEncode(src)).as("length %d", n).isEqualTo(Base64.getEncoder().encode(src));
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {65_535, 65_536, 65_537, 1024 * 1024})
    void encodesChunkSizesLikeTheJdk(int n) {
        byte[] src = random(n);
        assertThat(portableEncode(src)).isEqualTo(Base64.getEncoder().encode(src));
    }

    @Test
    void encodesIntoADirectLittleEndianBufferFromItsPositionAndAdvancesIt() {
        byte[] src = random(1000);
        byte[] expected = Base64.getEncoder().encode(src);
        ByteBuffer dst = ByteBuffer.allocateDirect(expected.length + 10).order(ByteOrder.LITTLE_ENDIAN);
        dst.position(7);
        Base64Codec.encodePortable(src, dst);
        assertThat(dst.position()).isEqualTo(7 + expected.length);
        assertThat(dst.order()).isEqualTo(ByteOrder.LITTLE_ENDIAN);
        byte[] written = new byte[expected.length];
        dst.get(7, written);
        assertThat(written).isEqualTo(expected);
    }

    @Test
    void encodeRefusesABufferWithTooLittleRoomAndWritesNothing() {
        ByteBuffer dst = ByteBuffer.allocate(7);
        assertThatThrownBy(() -> Base64Codec.encode(random(6), dst)).isInstanceOf(BufferOverflowException.class);
        assertThat(dst.position()).isZero();
        assertThat(dst.array()).containsOnly(0);
    }

    @Test
    void decodesWhatItEncodesForEveryLengthUpTo300() {
        for (int n = 0; n <= 300; n++) {
            byte[] src = random(n);
            byte[] chars = Base64.getEncoder().encode(src);
            assertThat(Base64Codec.decodePortable(ByteBuffer.wrap(chars), 0, chars.length)).as("length %d", n)
                    .isEqualTo(src);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {65_535, 65_536, 65_537, 1024 * 1024})
    void decodesChunkSizesFromADirectBuffer(int n) {
        byte[] src = random(n);
        byte[] chars = Base64.getEncoder().encode(src);
        ByteBuffer direct = ByteBuffer.allocateDirect(chars.length).put(chars).flip();
        assertThat(Base64Codec.decodePortable(direct, 0, chars.length)).isEqualTo(src);
        assertThat(Base64Codec.decodeJdk(direct, 0, chars.length)).isEqualTo(src);
        assertThat(Base64Codec.decode(direct, 0, chars.length)).isEqualTo(src);
        assertThat(direct.position()).isZero();
    }

    @Test
    void decodesARangeInsideALittleEndianBuffer() {
        byte[] src = random(500);
        byte[] chars = Base64.getEncoder().encode(src);
        ByteBuffer buf = ByteBuffer.allocate(chars.length + 20).order(ByteOrder.LITTLE_ENDIAN);
        buf.position(11);
        buf.put(chars);
        buf.put(ascii("\"}junk"));
        assertThat(Base64Codec.decodePortable(buf, 11, 11 + chars.length)).isEqualTo(src);
        assertThat(Base64Codec.decodeJdk(buf, 11, 11 + chars.length)).isEqualTo(src);
        assertThat(Base64Codec.decode(buf, 11, 11 + chars.length)).isEqualTo(src);
    }

    @ParameterizedTest
    @ValueSource(strings = {"A", "AB", "ABC", "ABCDE", "QQ=", "QQ"})
    void refusesALengthThatIsNotAMultipleOfFour(String chars) {
        byte[] b = ascii(chars);
        assertThat(Base64Codec.decodePortable(ByteBuffer.wrap(b), 0, b.length)).isNull();
        assertThat(Base64Codec.decodeJdk(ByteBuffer.wrap(b), 0, b.length)).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"====", "Q===", "=QQQ", "Q=QQ", "QQ=Q", "QQ==QQ==", "QUJD=UJD", "QUJDRA==QUJD",
        "QUJDRUZH=ABCDEFG", "QQ==\u0000\u0000\u0000\u0000"})
    void refusesPaddingAnywhereButTheEnd(String chars) {
        byte[] b = ascii(chars);
        assertThat(jdkDecode(b)).as("the JDK refuses it too").isNull();
        assertThat(Base64Codec.decodePortable(ByteBuffer.wrap(b), 0, b.length)).isNull();
    }

    @Test
    void refusesEveryByteOutsideTheAlphabetInEveryPositionOfALongInput() {
        byte[] valid = Base64.getEncoder().encode(random(60));          // 80 characters, no padding
        for (int bad = 0; bad < 256; bad++) {
            if (bad != '=' && bad != '+' && bad != '/' && !Character.isLetterOrDigit(bad) || bad > 'z') {
                for (int at : new int[] {0, 1, 5, 7, 8, 15, 16, 31, 40, 63, 75, 76, 77, 78, 79}) {
                    byte[] b = valid.clone();
                    b[at] = (byte) bad;
                    assertThat(Base64Codec.decodePortable(ByteBuffer.wrap(b), 0, b.length))
                            .as("byte %d at %d", bad, at).isNull();
                }
            }
        }
    }

    @Test
    void ignoresTheUnusedBitsOfAPaddedLastGroupAsTheJdkDoes() {
        for (String chars : new String[] {"QR==", "QUJ=", "QUI=", "QUJDRB=="}) {
            byte[] b = ascii(chars);
            assertThat(Base64Codec.decodePortable(ByteBuffer.wrap(b), 0, b.length)).as(chars).isEqualTo(jdkDecode(b));
        }
    }

    @Test
    void decodesTheEmptyRangeToNoBytes() {
        assertThat(Base64Codec.decodePortable(ByteBuffer.allocate(4), 2, 2)).isEmpty();
        assertThat(Base64Codec.decode(ByteBuffer.allocate(4), 2, 2)).isEmpty();
    }

    @Property(tries = 2000)
    void decodesExactlyWhatTheJdkDecodes(@ForAll("base64ish") byte[] chars) {
        byte[] expected = jdkDecode(chars);
        assertThat(Base64Codec.decodePortable(ByteBuffer.wrap(chars), 0, chars.length)).isEqualTo(expected);
        assertThat(Base64Codec.decodeJdk(ByteBuffer.wrap(chars), 0, chars.length)).isEqualTo(expected);
        assertThat(Base64Codec.decode(ByteBuffer.wrap(chars), 0, chars.length)).isEqualTo(expected);
    }

    @Property(tries = 500)
    void encodesExactlyWhatTheJdkEncodes(@ForAll byte[] src) {
        ByteBuffer dst = ByteBuffer.allocate(Base64Codec.encodedLength(src.length));
        Base64Codec.encode(src, dst);
        assertThat(dst.array()).isEqualTo(Base64.getEncoder().encode(src));
        assertThat(portableEncode(src)).isEqualTo(Base64.getEncoder().encode(src));
        ByteBuffer viaJdk = ByteBuffer.allocateDirect(Base64Codec.encodedLength(src.length) + 3).position(3);
        Base64Codec.encodeJdk(src, viaJdk);
        assertThat(viaJdk.hasRemaining()).isFalse();
        byte[] written = new byte[Base64Codec.encodedLength(src.length)];
        viaJdk.get(3, written);
        assertThat(written).isEqualTo(Base64.getEncoder().encode(src));
    }

    /**
     * Mostly valid base64 of random data with a few characters replaced by padding, other ASCII or
     * non-ASCII bytes, cut to a multiple of four.
     */
    @Provide
    Arbitrary<byte[]> base64ish() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(200).flatMap(raw -> {
            byte[] chars = Base64.getEncoder().encode(raw);
            return Arbitraries.integers().between(0, 3).list().ofMaxSize(chars.length == 0 ? 0 : 3)
                    .flatMap(kinds -> Arbitraries.integers().between(0, Math.max(0, chars.length - 1))
                            .list().ofSize(kinds.size()).map(positions -> {
                                byte[] b = chars.clone();
                                for (int k = 0; k < kinds.size(); k++) {
                                    b[positions.get(k)] = switch (kinds.get(k)) {
                                        case 0 -> (byte) '=';
                                        case 1 -> (byte) '-';
                                        case 2 -> (byte) 0xC3;
                                        default -> (byte) 'A';
                                    };
                                }
                                return b;
                            }));
        });
    }

    @Test
    void aDecodedArrayIsExactlyTheSizeOfTheData() {
        byte[] b = ascii("QUJDRA==");
        assertThat(Base64Codec.decodePortable(ByteBuffer.wrap(b), 0, b.length)).isEqualTo(ascii("ABCD"));
        assertThat(Arrays.equals(Base64Codec.decode(ByteBuffer.wrap(b), 0, b.length), ascii("ABCD"))).isTrue();
    }
}
