package org.vancetope.worktarget.backend.daemon.internal;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolSpec;

/**
 * The frames of the wire protocol that this module handles itself, as plain
 * values. Frames of other types (the transfer frames) are carried as {@link Other} with their raw
 * text, for a pluggable handler.
 */
public sealed interface Message {

    /** The frame's {@code type} field. */
    String type();

    /** Client → server, first frame. */
    record Hello(int protocolVersion, String profile, String tenant, String project, String daemonName,
                 String sessionId, String clientName, Set<String> capabilities, List<ToolSpec> tools,
                 Map<String, Object> limits) implements Message {
        /** Copies the collections ({@code limits}: what the client accepts, e.g. {@code maxFrameBytes}; may be empty). */
        public Hello {
            capabilities = Set.copyOf(capabilities);
            tools = List.copyOf(tools);
            limits = limits == null ? Map.of() : Map.copyOf(limits);
        }

        @Override
        public String type() {
            return Wire.HELLO;
        }
    }

    /** Server → client, answer to a valid hello. */
    record Welcome(int protocolVersion, String connectionId, Set<String> capabilities, Map<String, Object> limits)
            implements Message {
        /** Copies the collections. */
        public Welcome {
            capabilities = Set.copyOf(capabilities);
            limits = Map.copyOf(limits);
        }

        @Override
        public String type() {
            return Wire.WELCOME;
        }
    }

    /** Either direction: a failure of the connection or of a frame ({@code code}: an {@code ErrorCode} wire name). */
    record ErrorFrame(String code, String message) implements Message {
        /** Validates. */
        public ErrorFrame {
            Objects.requireNonNull(code, "code");
            message = message == null ? "" : message;
        }

        @Override
        public String type() {
            return Wire.ERROR;
        }
    }

    /** Client → server: replaces the manifest. */
    record ToolManifest(List<ToolSpec> tools) implements Message {
        /** Copies. */
        public ToolManifest {
            tools = List.copyOf(tools);
        }

        @Override
        public String type() {
            return Wire.TOOL_MANIFEST;
        }
    }

    /**
     * Server → client: run a tool. {@code context} travels only when the {@code invoke.context}
     * capability was negotiated; it is null otherwise.
     */
    record Invoke(String correlationId, String name, Map<String, Object> params, long timeoutMs, ToolContext context)
            implements Message {
        /** Validates. */
        public Invoke {
            Objects.requireNonNull(correlationId, "correlationId");
            Objects.requireNonNull(name, "name");
            params = params == null ? Map.of() : params;
        }

        @Override
        public String type() {
            return Wire.INVOKE;
        }
    }

    /** Client → server: the one answer to an invoke; {@code result} when ok, else {@code errorCode}/{@code errorMessage}. */
    record Result(String correlationId, boolean ok, Map<String, Object> result, String errorCode, String errorMessage)
            implements Message {
        /** Validates. */
        public Result {
            Objects.requireNonNull(correlationId, "correlationId");
        }

        @Override
        public String type() {
            return Wire.RESULT;
        }
    }

    /** Server → client: stop the work of an invoke. */
    record Cancel(String correlationId) implements Message {
        /** Validates. */
        public Cancel {
            Objects.requireNonNull(correlationId, "correlationId");
        }

        @Override
        public String type() {
            return Wire.CANCEL;
        }
    }

    /**
     * Server → client, with the {@code process.end} capability: a process ended; free what is held for it
     * (the jobs of its own scope).
     */
    record ProcessEnd(ToolContext context) implements Message {
        /** Validates. */
        public ProcessEnd {
            Objects.requireNonNull(context, "context");
        }

        @Override
        public String type() {
            return Wire.PROCESS_END;
        }
    }

    /**
     * A frame of a type this module does not handle itself: {@code utf8} is the whole frame as
     * UTF-8 bytes, read-only. Decoded from a network buffer it is a view of that buffer, valid only
     * until the frame is released: read it during the call that handed it over. {@code fields} are
     * the frame's fields when the decoder had to parse the frame to learn its type (so that its
     * handler need not parse it again), null when the type stood in the frame's canonical head.
     */
    record Other(String type, java.nio.ByteBuffer utf8, Map<String, Object> fields) implements Message {
        /** Checks the fields. */
        public Other {
            java.util.Objects.requireNonNull(type, "type");
            utf8 = utf8.asReadOnlyBuffer();
        }

        /**
         * A frame given as text.
         *
         * @param type the type
         * @param text the whole frame
         */
        public Other(String type, String text) {
            this(type, java.nio.ByteBuffer.wrap(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)), null);
        }

        /**
         * Hands the frame to an extension: its fields when the decoder parsed them, else its bytes.
         *
         * @param extension the extension that handles the type
         * @param channel the connection it arrived on
         */
        public void handTo(org.vancetope.worktarget.backend.daemon.FrameExtension extension,
                           org.vancetope.worktarget.backend.daemon.WireChannel channel) {
            if (fields == null) {
                extension.onFrameUtf8(channel, type, utf8);
            } else {
                extension.onFrameFields(channel, type, fields, utf8);
            }
        }

        /**
         * The frame as text.
         *
         * @return the decoded frame
         */
        public String text() {
            return java.nio.charset.StandardCharsets.UTF_8.decode(utf8.duplicate()).toString();
        }
    }
}
