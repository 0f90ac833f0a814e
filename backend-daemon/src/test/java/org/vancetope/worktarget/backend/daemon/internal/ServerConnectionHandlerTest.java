package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.handler.timeout.IdleStateEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.backend.daemon.WireChannel;
import org.vancetope.worktarget.backend.daemon.FrameExtension;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.SessionKey;

class ServerConnectionHandlerTest {
    private static final AuthPrincipal BOX = new AuthPrincipal("box", "acme", Set.of("proj"), null);
    private static final String HELLO = "{\"type\":\"hello\",\"protocolVersion\":1,\"profile\":\"daemon\",\"tenant\":\"acme\","
            + "\"project\":\"proj\",\"daemonName\":\"box-1\",\"capabilities\":[\"invoke.context\",\"x.unknown\"],"
            + "\"tools\":[{\"name\":\"client_file_read\",\"paramsSchema\":{\"type\":\"object\"}}]}";

    private static final int MAX_MANIFEST = 8192;
    private static final int MANIFEST_BUDGET = 16384;
    private static final AuthPrincipal ALICE = new AuthPrincipal("alice", "acme", Set.of("proj"), null);
    private static final AuthPrincipal MALLORY = new AuthPrincipal("mallory", "acme", Set.of("other"), null);

    private final AtomicLong now = new AtomicLong();
    private final List<String> extensionFrames = new ArrayList<>();
    private final List<String> extensionClosed = new ArrayList<>();
    private final ServerCore core = new ServerCore(new ServerSettings("/worktarget/v1", 2 << 20, 65536,
            Duration.ofSeconds(15), 3, Duration.ofSeconds(10), 3, Duration.ofSeconds(10),
            Set.of(Wire.CAP_INVOKE_CONTEXT), Map.of("maxChunkBytes", 1048576), token -> Optional.empty(),
            new FrameExtension() {
                @Override
                public boolean handles(String type) {
                    return type.startsWith("transfer_");
                }

                @Override
                public void onFrame(WireChannel channel, String type, String frame) {
                    extensionFrames.add(channel.id() + " " + frame);
                }

                @Override
                public void onClose(WireChannel channel) {
                    extensionClosed.add(channel.id());
                }
            }, now::get, MAX_MANIFEST, MANIFEST_BUDGET));
    private final List<EmbeddedChannel> channels = new ArrayList<>();

    private EmbeddedChannel connect(AuthPrincipal principal, String profile) {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.attr(HandshakeAuthHandler.PRINCIPAL).set(principal);
        ch.attr(HandshakeAuthHandler.PROFILE).set(profile);
        ch.pipeline().addLast(new ServerConnectionHandler(core));
        ch.pipeline().fireUserEventTriggered(
                new WebSocketServerProtocolHandler.HandshakeComplete("/worktarget/v1", new DefaultHttpHeaders(), null));
        channels.add(ch);
        return ch;
    }

    private EmbeddedChannel welcomed() {
        EmbeddedChannel ch = connect(BOX, "daemon");
        ch.writeInbound(new TextWebSocketFrame(HELLO));
        assertThat(nextText(ch)).contains("\"type\":\"welcome\"");
        return ch;
    }

    private static String nextText(EmbeddedChannel ch) {
        Object o = ch.readOutbound();
        assertThat(o).isInstanceOf(TextWebSocketFrame.class);
        TextWebSocketFrame f = (TextWebSocketFrame) o;
        try {
            return f.text();
        } finally {
            f.release();
        }
    }

    private static Object outbound(EmbeddedChannel ch) {
        return ch.readOutbound();
    }

    private static int closeCode(EmbeddedChannel ch) {
        Object o = ch.readOutbound();
        assertThat(o).isInstanceOf(CloseWebSocketFrame.class);
        CloseWebSocketFrame f = (CloseWebSocketFrame) o;
        try {
            return f.statusCode();
        } finally {
            f.release();
        }
    }

    @AfterEach
    void closeChannels() {
        channels.forEach(EmbeddedChannel::finishAndReleaseAll);
    }

    /** ONLINE, STALE or OFFLINE, as the registry sees a daemon. */
    private String state(DaemonKey key) {
        return core.peers().connection(key).map(c -> c.isStale() ? "STALE" : "ONLINE").orElse("OFFLINE");
    }

    @Test
    void helloIsAnsweredWithWelcomeAndRegistersTheDaemon() {
        EmbeddedChannel ch = connect(BOX, "daemon");
        ch.writeInbound(new TextWebSocketFrame(HELLO));
        String welcome = nextText(ch);
        assertThat(welcome).contains("\"protocolVersion\":1", "\"connectionId\":\"c-", "\"maxChunkBytes\":1048576");
        assertThat(state(new DaemonKey("acme", "proj", "box-1"))).isEqualTo("ONLINE");
        assertThat(core.peers().connection(new DaemonKey("acme", "proj", "box-1")).orElseThrow().manifest())
                .extracting(s -> s.name()).containsExactly("client_file_read");
    }

    @Test
    void welcomeConfirmsOnlyTheCapabilitiesBothSidesSupport() {
        EmbeddedChannel ch = connect(BOX, "daemon");
        ch.writeInbound(new TextWebSocketFrame(HELLO));
        assertThat(nextText(ch)).contains("\"capabilities\":[\"invoke.context\"]");
    }

    @Test
    void closingTheChannelTakesTheDaemonOfflineAndTellsTheExtension() {
        EmbeddedChannel ch = welcomed();
        ch.close();
        assertThat(state(new DaemonKey("acme", "proj", "box-1"))).isEqualTo("OFFLINE");
        assertThat(extensionClosed).hasSize(1);
    }

    @Test
    void badJsonIsAnsweredWithBadFrameAndTheConnectionStaysOpen() {
        EmbeddedChannel ch = welcomed();
        ch.writeInbound(new TextWebSocketFrame("{not json"));
        assertThat(nextText(ch)).contains("\"code\":\"bad_frame\"", "not valid JSON");
        assertThat(ch.isOpen()).isTrue();
    }

    @Test
    void frameWithoutTypeIsAnsweredWithBadFrame() {
        EmbeddedChannel ch = welcomed();
        ch.writeInbound(new TextWebSocketFrame("{\"correlationId\":\"dt-1\"}"));
        assertThat(nextText(ch)).contains("\"code\":\"bad_frame\"", "'type'");
        assertThat(ch.isOpen()).isTrue();
    }

    @Test
    void unknownTypeIsAnsweredWithBadFrame() {
        EmbeddedChannel ch = welcomed();
        ch.writeInbound(new TextWebSocketFrame("{\"type\":\"make_coffee\"}"));
        assertThat(nextText(ch)).contains("\"code\":\"bad_frame\"", "make_coffee");
        assertThat(ch.isOpen()).isTrue();
    }

    @Test
    void binaryFrameIsAProtocolError() {
        EmbeddedChannel ch = welcomed();
        ch.writeInbound(new BinaryWebSocketFrame(Unpooled.wrappedBuffer(new byte[] {1, 2, 3})));
        assertThat(nextText(ch)).contains("\"code\":\"bad_frame\"", "transfer.binary");
        assertThat(ch.isOpen()).isTrue();
    }

    @Test
    void threeProtocolErrorsWithinTheWindowClose1008() {
        EmbeddedChannel ch = welcomed();
        for (int i = 0; i < 3; i++) {
            now.addAndGet(TimeUnit.SECONDS.toNanos(3));
            ch.writeInbound(new TextWebSocketFrame("nope"));
            assertThat(nextText(ch)).contains("bad_frame");
        }
        assertThat(closeCode(ch)).isEqualTo(1008);
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void protocolErrorsSpreadBeyondTheWindowKeepTheConnection() {
        EmbeddedChannel ch = welcomed();
        for (int i = 0; i < 5; i++) {
            now.addAndGet(TimeUnit.SECONDS.toNanos(6));
            ch.writeInbound(new TextWebSocketFrame("nope"));
            assertThat(nextText(ch)).contains("bad_frame");
        }
        assertThat(ch.isOpen()).isTrue();
    }

    @Test
    void frameBeforeHelloCloses4400() {
        EmbeddedChannel ch = connect(BOX, "daemon");
        ch.writeInbound(new TextWebSocketFrame("{\"type\":\"tool_manifest\",\"tools\":[]}"));
        assertThat(nextText(ch)).contains("bad_frame", "first frame must be 'hello'");
        assertThat(closeCode(ch)).isEqualTo(4400);
    }

    @Test
    void noHelloWithinTheTimeoutCloses4408() {
        EmbeddedChannel ch = connect(BOX, "daemon");
        ch.advanceTimeBy(9, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        assertThat(outbound(ch)).isNull();
        ch.advanceTimeBy(1, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        assertThat(nextText(ch)).contains("No hello");
        assertThat(closeCode(ch)).isEqualTo(4408);
    }

    @Test
    void unsupportedProtocolVersionCloses4426() {
        EmbeddedChannel ch = connect(BOX, "daemon");
        ch.writeInbound(new TextWebSocketFrame(HELLO.replace("\"protocolVersion\":1", "\"protocolVersion\":2")));
        assertThat(nextText(ch)).contains("version 2 is not supported");
        assertThat(closeCode(ch)).isEqualTo(4426);
    }

    @Test
    void helloForAProjectTheTokenDoesNotGrantIsForbidden() {
        EmbeddedChannel ch = connect(BOX, "daemon");
        ch.writeInbound(new TextWebSocketFrame(HELLO.replace("\"project\":\"proj\"", "\"project\":\"other\"")));
        assertThat(nextText(ch)).contains("\"code\":\"forbidden\"", "project 'other'");
        assertThat(closeCode(ch)).isEqualTo(4403);
        assertThat(core.peers().onlineDaemons("acme", "other")).isEmpty();
    }

    @Test
    void helloForAnotherTenantIsForbidden() {
        EmbeddedChannel ch = connect(BOX, "daemon");
        ch.writeInbound(new TextWebSocketFrame(HELLO.replace("\"tenant\":\"acme\"", "\"tenant\":\"globex\"")));
        assertThat(nextText(ch)).contains("\"code\":\"forbidden\"");
        assertThat(closeCode(ch)).isEqualTo(4403);
    }

    @Test
    void helloWithAProjectThatIsNotASafeSegmentIsRefusedEvenWhenTheTokenGrantsEveryProject() {
        AuthPrincipal any = new AuthPrincipal("box", "acme", Set.of("*"), null);
        for (String project : List.of("../other", ".hidden", "a/b", "bad\\ufffdname")) {
            EmbeddedChannel ch = connect(any, "daemon");
            ch.writeInbound(new TextWebSocketFrame(HELLO.replace("\"project\":\"proj\"",
                    "\"project\":\"" + project + "\"")));
            assertThat(nextText(ch)).as(project).contains("\"code\":\"bad_frame\"", "hello.project must be");
            assertThat(closeCode(ch)).isEqualTo(4400);
        }
        assertThat(core.peers().onlineDaemons("acme", "../other")).isEmpty();
    }

    @Test
    void helloWithTheGrantWildcardAsItsProjectIsRefusedNamingIt() {
        AuthPrincipal any = new AuthPrincipal("box", "acme", Set.of("*"), null);
        for (String profile : List.of("daemon", "foot")) {
            EmbeddedChannel ch = connect(any, profile);
            String hello = "daemon".equals(profile) ? HELLO : "{\"type\":\"hello\",\"protocolVersion\":1,"
                    + "\"profile\":\"foot\",\"tenant\":\"acme\",\"project\":\"proj\",\"sessionId\":\"s-1\"}";
            ch.writeInbound(new TextWebSocketFrame(hello.replace("\"project\":\"proj\"", "\"project\":\"*\"")));
            assertThat(nextText(ch)).as(profile).contains("\"code\":\"bad_frame\"",
                    "hello.project is '*', which in a token's projects grants every project");
            assertThat(closeCode(ch)).isEqualTo(4400);
        }
        assertThat(core.peers().onlineDaemons("acme", "*")).isEmpty();
    }

    @Test
    void helloWithATenantThatIsNotASafeSegmentIsRefused() {
        AuthPrincipal odd = new AuthPrincipal("box", "..", Set.of("*"), null);
        EmbeddedChannel ch = connect(odd, "daemon");
        ch.writeInbound(new TextWebSocketFrame(HELLO.replace("\"tenant\":\"acme\"", "\"tenant\":\"..\"")));
        assertThat(nextText(ch)).contains("\"code\":\"bad_frame\"", "hello.tenant must be", "it is '..'");
        assertThat(closeCode(ch)).isEqualTo(4400);
    }

    @Test
    void helloAnnouncingAFrameLimitBelow64KiBIsRefused() {
        for (String limit : List.of("1000", "\"big\"")) {
            EmbeddedChannel ch = connect(BOX, "daemon");
            ch.writeInbound(new TextWebSocketFrame(HELLO.replace("\"tools\":",
                    "\"limits\":{\"maxFrameBytes\":" + limit + "},\"tools\":")));
            assertThat(nextText(ch)).as(limit).contains("\"code\":\"bad_frame\"", "hello.limits.maxFrameBytes",
                    "at least 65536");
            assertThat(closeCode(ch)).isEqualTo(4400);
        }
    }

    @Test
    void daemonNameOutsideThePatternIsRefused() {
        EmbeddedChannel ch = connect(BOX, "daemon");
        ch.writeInbound(new TextWebSocketFrame(HELLO.replace("box-1", "Box One")));
        assertThat(nextText(ch)).contains("Daemon names");
        assertThat(closeCode(ch)).isEqualTo(4400);
    }

    @Test
    void footHelloWithoutSessionIsRefused() {
        EmbeddedChannel ch = connect(BOX, "foot");
        ch.writeInbound(new TextWebSocketFrame("{\"type\":\"hello\",\"protocolVersion\":1,\"profile\":\"foot\","
                + "\"tenant\":\"acme\"}"));
        assertThat(nextText(ch)).contains("needs 'sessionId'");
        assertThat(closeCode(ch)).isEqualTo(4400);
    }

    @Test
    void footHelloBindsTheSession() {
        EmbeddedChannel ch = connect(BOX, "foot");
        ch.writeInbound(new TextWebSocketFrame("{\"type\":\"hello\",\"protocolVersion\":1,\"profile\":\"foot\","
                + "\"tenant\":\"acme\",\"sessionId\":\"s-1\"}"));
        assertThat(nextText(ch)).contains("welcome");
        assertThat(core.peers().find(new SessionKey("acme", "s-1"))).isPresent();
        assertThat(core.peers().find(new SessionKey("globex", "s-1"))).isEmpty();
    }

    @Test
    void helloProfileMustMatchTheUpgradeHeader() {
        EmbeddedChannel ch = connect(BOX, "foot");
        ch.writeInbound(new TextWebSocketFrame(HELLO));
        assertThat(nextText(ch)).contains("does not match");
        assertThat(closeCode(ch)).isEqualTo(4400);
    }

    @Test
    void secondHelloIsAProtocolError() {
        EmbeddedChannel ch = welcomed();
        ch.writeInbound(new TextWebSocketFrame(HELLO));
        assertThat(nextText(ch)).contains("bad_frame", "after welcome");
        assertThat(ch.isOpen()).isTrue();
    }

    @Test
    void toolManifestReplacesTheManifestInPlace() {
        EmbeddedChannel ch = welcomed();
        ch.writeInbound(new TextWebSocketFrame("{\"type\":\"tool_manifest\",\"tools\":[{\"name\":\"client_exec_run\","
                + "\"paramsSchema\":{\"type\":\"object\"}}]}"));
        assertThat(core.peers().connection(new DaemonKey("acme", "proj", "box-1")).orElseThrow().manifest())
                .extracting(s -> s.name()).containsExactly("client_exec_run");
    }

    @Test
    void extensionFramesReachTheExtensionWithTheirConnection() {
        EmbeddedChannel ch = welcomed();
        String frame = "{\"type\":\"transfer_init\",\"transferId\":\"t-1\"}";
        ch.writeInbound(new TextWebSocketFrame(frame));
        assertThat(extensionFrames).singleElement().asString().startsWith("c-").endsWith(frame);
        assertThat(outbound(ch)).isNull();
    }

    @Test
    void extensionFramesWithMultiByteTextReachTheExtensionIntact() {
        EmbeddedChannel ch = welcomed();
        String frame = "{\"type\":\"transfer_init\",\"transferId\":\"t-1\",\"target\":\"r\u00e9sum\u00e9 \ud83d\ude80.txt\"}";
        ch.writeInbound(new TextWebSocketFrame(Unpooled.copiedBuffer(frame, java.nio.charset.StandardCharsets.UTF_8)));
        assertThat(extensionFrames).singleElement().asString().endsWith(frame);
    }

    @Test
    void textFrameThatIsNotValidUtf8Closes1007AndNeverReachesTheExtension() {
        EmbeddedChannel ch = welcomed();
        byte[] frame = "{\"type\":\"transfer_init\",\"transferId\":\"t-\u0001\"}".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        frame[frame.length - 3] = (byte) 0xED;      // a lone lead byte of a surrogate range
        ch.writeInbound(new TextWebSocketFrame(Unpooled.wrappedBuffer(frame)));
        assertThat(closeCode(ch)).isEqualTo(1007);
        assertThat(extensionFrames).isEmpty();
        assertThat(state(new DaemonKey("acme", "proj", "box-1"))).isEqualTo("OFFLINE");
    }

    @Test
    void lateResultIsDroppedWithoutAnError() {
        EmbeddedChannel ch = welcomed();
        ch.writeInbound(new TextWebSocketFrame("{\"type\":\"client_tool_result\",\"correlationId\":\"dt-gone\",\"ok\":true}"));
        assertThat(outbound(ch)).isNull();
        assertThat(ch.isOpen()).isTrue();
    }

    @Test
    void silentIntervalsSendPingsThenCloseAfterThree() {
        EmbeddedChannel ch = welcomed();
        DaemonKey key = new DaemonKey("acme", "proj", "box-1");
        ch.pipeline().fireUserEventTriggered(IdleStateEvent.FIRST_READER_IDLE_STATE_EVENT);
        assertThat(outbound(ch)).isInstanceOf(PingWebSocketFrame.class);
        assertThat(state(key)).isEqualTo("ONLINE");
        ch.pipeline().fireUserEventTriggered(IdleStateEvent.READER_IDLE_STATE_EVENT);
        assertThat(outbound(ch)).isInstanceOf(PingWebSocketFrame.class);
        assertThat(state(key)).isEqualTo("STALE");
        ch.pipeline().fireUserEventTriggered(IdleStateEvent.READER_IDLE_STATE_EVENT);
        assertThat(closeCode(ch)).isEqualTo(1001);
        assertThat(state(key)).isEqualTo("OFFLINE");
    }

    @Test
    void aPongMakesAStaleDaemonOnlineAgain() {
        EmbeddedChannel ch = welcomed();
        DaemonKey key = new DaemonKey("acme", "proj", "box-1");
        ch.pipeline().fireUserEventTriggered(IdleStateEvent.FIRST_READER_IDLE_STATE_EVENT);
        ch.pipeline().fireUserEventTriggered(IdleStateEvent.READER_IDLE_STATE_EVENT);
        assertThat(state(key)).isEqualTo("STALE");
        ch.writeInbound(new PongWebSocketFrame());
        assertThat(state(key)).isEqualTo("ONLINE");
    }

    @Test
    void oversizeFrameReportedByTheDecoderCloses1009AndTakesTheDaemonOffline() {
        EmbeddedChannel ch = welcomed();
        ch.pipeline().fireExceptionCaught(new CorruptedWebSocketFrameException(WebSocketCloseStatus.MESSAGE_TOO_BIG,
                "Max frame length of 2097152 has been exceeded."));
        assertThat(closeCode(ch)).isEqualTo(1009);
        assertThat(state(new DaemonKey("acme", "proj", "box-1"))).isEqualTo("OFFLINE");
    }

    @Test
    void tooLongMessageCloses1009() {
        EmbeddedChannel ch = welcomed();
        ch.pipeline().fireExceptionCaught(new TooLongFrameException("too long"));
        assertThat(closeCode(ch)).isEqualTo(1009);
    }

    @Test
    void secondDaemonWithTheSameKeySupersedesTheFirst() {
        EmbeddedChannel first = welcomed();
        EmbeddedChannel second = welcomed();
        assertThat(nextText(first)).contains("\"code\":\"superseded\"");
        assertThat(closeCode(first)).isEqualTo(4409);
        assertThat(second.isOpen()).isTrue();
        assertThat(state(new DaemonKey("acme", "proj", "box-1"))).isEqualTo("ONLINE");
    }

    private static String footHello(String sessionId) {
        return "{\"type\":\"hello\",\"protocolVersion\":1,\"profile\":\"foot\",\"tenant\":\"acme\",\"sessionId\":\""
                + sessionId + "\"}";
    }

    /** A daemon hello of exactly {@code bytes} bytes: one tool whose description pads it. */
    private static String daemonHelloOf(String name, int bytes) {
        String head = "{\"type\":\"hello\",\"protocolVersion\":1,\"profile\":\"daemon\",\"tenant\":\"acme\","
                + "\"project\":\"proj\",\"daemonName\":\"" + name + "\",\"tools\":[{\"name\":\"client_file_read\","
                + "\"paramsSchema\":{\"type\":\"object\"},\"description\":\"";
        String tail = "\"}]}";
        return head + "d".repeat(bytes - head.length() - tail.length()) + tail;
    }

    /** A daemon whose hello of {@code bytes} bytes was welcomed. */
    private EmbeddedChannel welcomedDaemon(String name, int bytes) {
        EmbeddedChannel ch = connect(BOX, "daemon");
        ch.writeInbound(new TextWebSocketFrame(daemonHelloOf(name, bytes)));
        assertThat(nextText(ch)).contains("welcome");
        return ch;
    }

    private static String manifestOf(int bytes) {
        String head = "{\"type\":\"tool_manifest\",\"tools\":[{\"name\":\"client_exec_run\","
                + "\"paramsSchema\":{\"type\":\"object\"},\"description\":\"";
        String tail = "\"}]}";
        return head + "d".repeat(bytes - head.length() - tail.length()) + tail;
    }

    private List<String> manifestNames(String daemon) {
        return core.peers().connection(new DaemonKey("acme", "proj", daemon)).orElseThrow().manifest().stream()
                .map(t -> t.name()).toList();
    }

    @Test
    void footOfTheSameSubjectSupersedesItsOlderConnection() {
        EmbeddedChannel first = connect(ALICE, "foot");
        first.writeInbound(new TextWebSocketFrame(footHello("s-1")));
        assertThat(nextText(first)).contains("welcome");
        EmbeddedChannel second = connect(ALICE, "foot");
        second.writeInbound(new TextWebSocketFrame(footHello("s-1")));
        assertThat(nextText(second)).contains("welcome");
        assertThat(nextText(first)).contains("\"code\":\"superseded\"");
        assertThat(closeCode(first)).isEqualTo(4409);
    }

    @Test
    void footOfAnotherSubjectCannotTakeOverAnOpenSession() {
        EmbeddedChannel victim = connect(ALICE, "foot");
        victim.writeInbound(new TextWebSocketFrame(footHello("s-1")));
        assertThat(nextText(victim)).contains("welcome");
        String victimId = core.peers().connection(new SessionKey("acme", "s-1")).orElseThrow().id();

        EmbeddedChannel intruder = connect(MALLORY, "foot");
        intruder.writeInbound(new TextWebSocketFrame(footHello("s-1")));

        assertThat(nextText(intruder)).contains("\"code\":\"forbidden\"", "another token's subject");
        assertThat(closeCode(intruder)).isEqualTo(4403);
        assertThat(victim.isOpen()).isTrue();
        assertThat(outbound(victim)).isNull();
        assertThat(core.peers().connection(new SessionKey("acme", "s-1")).orElseThrow().id()).isEqualTo(victimId);
    }

    @Test
    void footOfAnotherSubjectMayServeASessionWhoseConnectionClosed() {
        EmbeddedChannel earlier = connect(ALICE, "foot");
        earlier.writeInbound(new TextWebSocketFrame(footHello("s-1")));
        assertThat(nextText(earlier)).contains("welcome");
        earlier.close();

        EmbeddedChannel later = connect(MALLORY, "foot");
        later.writeInbound(new TextWebSocketFrame(footHello("s-1")));

        assertThat(nextText(later)).contains("welcome");
        assertThat(core.peers().connection(new SessionKey("acme", "s-1")).orElseThrow().principal().subject())
                .isEqualTo("mallory");
    }

    @Test
    void helloOverTheManifestLimitIsRefusedWithSizeLimitAndAFinalClose() {
        EmbeddedChannel ch = connect(BOX, "daemon");
        ch.writeInbound(new TextWebSocketFrame(daemonHelloOf("box-1", MAX_MANIFEST + 1)));
        assertThat(nextText(ch)).contains("\"code\":\"size_limit\"", (MAX_MANIFEST + 1) + " bytes",
                "at most " + MAX_MANIFEST + " bytes", "maxManifestBytes");
        assertThat(closeCode(ch)).isEqualTo(4400);
        assertThat(state(new DaemonKey("acme", "proj", "box-1"))).isEqualTo("OFFLINE");
    }

    @Test
    void helloAtTheManifestLimitIsWelcomed() {
        EmbeddedChannel ch = welcomedDaemon("box-1", MAX_MANIFEST);
        assertThat(core.manifestBytesHeld()).isEqualTo(MAX_MANIFEST);
    }

    @Test
    void helloWhoseManifestDoesNotFitTheBudgetIsToldToTryAgainLater() {
        EmbeddedChannel a = welcomedDaemon("box-a", MAX_MANIFEST);
        EmbeddedChannel b = welcomedDaemon("box-b", MAX_MANIFEST);

        EmbeddedChannel c = connect(BOX, "daemon");
        c.writeInbound(new TextWebSocketFrame(daemonHelloOf("box-c", 100 + HELLO.length())));

        assertThat(nextText(c)).contains("\"code\":\"size_limit\"", "manifestBudgetBytes", "Try again later");
        assertThat(closeCode(c)).isEqualTo(1013);
        assertThat(state(new DaemonKey("acme", "proj", "box-c"))).isEqualTo("OFFLINE");
        assertThat(core.manifestBytesHeld()).isEqualTo(2 * MAX_MANIFEST);
    }

    @Test
    void aClosedConnectionGivesItsManifestBytesBack() {
        EmbeddedChannel a = welcomedDaemon("box-a", MAX_MANIFEST);
        EmbeddedChannel b = welcomedDaemon("box-b", MAX_MANIFEST);
        a.close();
        assertThat(core.manifestBytesHeld()).isEqualTo(MAX_MANIFEST);

        EmbeddedChannel c = welcomedDaemon("box-c", MAX_MANIFEST);
        b.close();
        c.close();
        assertThat(core.manifestBytesHeld()).isZero();
    }

    @Test
    void refusedHellosHoldNoManifestBytes() {
        EmbeddedChannel victim = connect(ALICE, "foot");
        victim.writeInbound(new TextWebSocketFrame(footHello("s-1")));
        assertThat(nextText(victim)).contains("welcome");
        long held = core.manifestBytesHeld();
        for (int i = 0; i < 100; i++) {
            EmbeddedChannel intruder = connect(MALLORY, "foot");
            intruder.writeInbound(new TextWebSocketFrame(footHello("s-1")));
            assertThat(nextText(intruder)).contains("forbidden");
        }
        assertThat(core.manifestBytesHeld()).isEqualTo(held);
    }

    @Test
    void toolManifestOverTheLimitIsABadFrameAndTheOldManifestStays() {
        EmbeddedChannel ch = welcomed();
        ch.writeInbound(new TextWebSocketFrame(manifestOf(MAX_MANIFEST + 1)));
        assertThat(nextText(ch)).contains("\"code\":\"bad_frame\"", "keeps its manifest");
        assertThat(ch.isOpen()).isTrue();
        assertThat(manifestNames("box-1")).containsExactly("client_file_read");
        assertThat(core.manifestBytesHeld()).isEqualTo(HELLO.length());
    }

    @Test
    void toolManifestThatDoesNotFitTheBudgetIsRefusedAndTheOldManifestStays() {
        EmbeddedChannel a = welcomedDaemon("box-a", MAX_MANIFEST);
        EmbeddedChannel b = welcomedDaemon("box-b", 1000);
        EmbeddedChannel ch = welcomed();

        ch.writeInbound(new TextWebSocketFrame(manifestOf(MAX_MANIFEST)));

        assertThat(nextText(ch)).contains("\"code\":\"size_limit\"", "keeps its manifest");
        assertThat(ch.isOpen()).isTrue();
        assertThat(manifestNames("box-1")).containsExactly("client_file_read");
        assertThat(core.manifestBytesHeld()).isEqualTo(MAX_MANIFEST + 1000 + HELLO.length());
    }

    @Test
    void smallerToolManifestGivesBytesBackToTheBudget() {
        EmbeddedChannel ch = welcomedDaemon("box-1", MAX_MANIFEST);
        String small = manifestOf(300);
        ch.writeInbound(new TextWebSocketFrame(small));
        assertThat(manifestNames("box-1")).containsExactly("client_exec_run");
        assertThat(core.manifestBytesHeld()).isEqualTo(300);
    }
}
