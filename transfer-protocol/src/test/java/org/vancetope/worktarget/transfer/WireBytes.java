package org.vancetope.worktarget.transfer;

import java.nio.ByteBuffer;
import java.util.function.Function;
import org.vancetope.worktarget.core.transfer.TransferChunk;
import org.vancetope.worktarget.core.transfer.TransferFrame;

/**
 * The bytes of transfer frames on an in-memory wire, as the real connection has them: JSON text, and
 * with {@code transfer.binary} every chunk as a binary frame.
 */
final class WireBytes {
    private static final TransferCodec CODEC = TransferCodec.create();

    private WireBytes() {
    }

    /**
     * The encoder of a connection.
     *
     * @param binary whether the connection negotiated {@code transfer.binary}
     * @return frame to bytes
     */
    static Function<TransferFrame, byte[]> encoder(boolean binary) {
        return binary ? WireBytes::encodeBinaryChunks : CODEC::encode;
    }

    /**
     * Decodes what {@link #encoder} wrote, binary chunk frames or JSON.
     *
     * @param bytes one frame
     * @return the frame
     */
    static TransferFrame decode(byte[] bytes) {
        try {
            if (bytes.length > 0 && bytes[0] == TransferCodec.BINARY_CHUNK) {
                return CODEC.decodeBinaryChunk(ByteBuffer.wrap(bytes));
            }
            return CODEC.decode(bytes);
        } catch (FrameDecodeException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] encodeBinaryChunks(TransferFrame f) {
        if (!(f instanceof TransferChunk c)) {
            return CODEC.encode(f);
        }
        ByteBuffer b = ByteBuffer.allocate(CODEC.binaryLength(c));
        CODEC.encodeBinaryChunk(c, b);
        return b.array();
    }
}
