# The tracker's connection to the broker, kept up forever.
#
# umqtt.simple (micropython-lib) speaks MQTT; this module decides when. Every
# connection is a clean session that sets the last will ("offline", retained),
# subscribes again to everything and announces itself, so a broker restart or
# a Wi-Fi drop costs nothing but the time to reconnect. Failed attempts are
# spaced by a doubling delay with random jitter, so a room full of trackers
# does not stampede a broker that has just come back.
import errno
import json
import random
import select
import socket
import time

from umqtt.simple import MQTTClient

WIFI_PATIENCE_MS = 15000   # give an association this long before starting another
RESOLVE_EVERY = 5          # look the broker's name up again after this many failures
BURST = 16                 # messages read in one poll, so the LEDs keep moving in a flood


def resolve(host, port):
    """The broker's IP address as text, so umqtt never asks DNS again."""
    addr = socket.getaddrinfo(host, port)[0][-1]
    if type(addr) is tuple:            # the boards: ("192.168.1.2", 1883)
        return addr[0]
    family, ip = socket.sockaddr(addr)[:2]   # the unix port: a raw sockaddr
    return socket.inet_ntop(family, ip)


def probe(ip, port, timeout_ms):
    """Raise OSError unless the broker accepts a TCP connection within the timeout.

    umqtt's connect() blocks for as long as the network stack likes (tens of
    seconds for a host that has gone), which the watchdog would take for a hang.
    """
    s = socket.socket()
    try:
        s.setblocking(False)
        try:
            s.connect(socket.getaddrinfo(ip, port)[0][-1])
        except OSError as e:
            if e.errno != errno.EINPROGRESS:
                raise
        p = select.poll()
        p.register(s, select.POLLOUT)
        ready = p.poll(timeout_ms)
        if not ready:
            raise OSError("no answer from %s:%d in %d ms" % (ip, port, timeout_ms))
        if ready[0][1] & (select.POLLERR | select.POLLHUP):
            raise OSError("%s:%d refused the connection" % (ip, port))
    finally:
        s.close()


class MqttLink:
    """Seat payloads in from runes/<table>/seat/+, assignments in from
    runes/<table>/tracker/<id>/seat and blink requests from .../blink, the
    heartbeat out on .../status."""

    kind = "mqtt"

    def __init__(self, config, network, tracker_id):
        prefix = "runes/%s/" % config["table"]
        self.seat_prefix = prefix + "seat/"
        self.assign_topic = "%stracker/%s/seat" % (prefix, tracker_id)
        self.status_topic = "%stracker/%s/status" % (prefix, tracker_id)
        self.blink_topic = "%stracker/%s/blink" % (prefix, tracker_id)
        self.client_id = "runes-tracker-" + tracker_id
        self.config = config
        self.network = network
        self.tracker = None
        self.client = None
        self.ip = None
        self.failures = 0
        self.connects = 0
        self.retry_at = 0
        self.wifi_at = None
        self.heard_at = 0
        self.poller = select.poll()
        self.dead_after = 3 * config["heartbeat_s"] * 1000

    @property
    def online(self):
        return self.client is not None

    def start(self, tracker):
        self.tracker = tracker
        self.retry_at = tracker.clock.ms()

    def poll(self, timeout_ms):
        """Wait up to `timeout_ms` for messages and hand them to the tracker;
        (re)connect when it is time."""
        now = self.tracker.clock.ms()
        if self.client is None:
            if now >= self.retry_at:
                self._connect(now)
            if self.client is None:
                time.sleep_ms(timeout_ms)
                return
        client = self.client
        try:
            ready = self.poller.poll(timeout_ms)
            for _ in range(BURST):
                if not ready:
                    break
                client.check_msg()
                ready = self.poller.poll(0)
        except Exception as e:
            # Whatever umqtt raises (OSError, a failed assert on a torn packet,
            # an IndexError at end of stream) means this connection is done.
            self._lost("connection lost: %r" % (e,))
            return
        if self.tracker.clock.ms() - self.heard_at > self.dead_after:
            self._lost("no echo of the heartbeat for %d s" % (self.dead_after // 1000))

    def rssi(self):
        return self.network.rssi()

    def send_status(self, status):
        if self.client is None:
            return
        try:
            self.client.publish(self.status_topic.encode(), json.dumps(status).encode(), True)
        except Exception as e:
            self._lost("publish failed: %r" % (e,))

    def report(self, error, status):
        # The error is in the status (its "error" key): publish it at once.
        self.send_status(status)

    def _received(self, topic, msg):
        self.heard_at = self.tracker.clock.ms()
        topic = topic.decode()
        if topic == self.status_topic:
            return              # our own heartbeat coming back: proof the link works
        if topic == self.assign_topic:
            self.tracker.received("CONF", None, msg)
        elif topic == self.blink_topic:
            self.tracker.received("BLNK", None, msg)
        elif topic.startswith(self.seat_prefix):
            number = topic[len(self.seat_prefix):]
            self.tracker.received("SEAT", int(number) if number.isdigit() else number, msg)

    def _connect(self, now):
        c = self.config
        if not self.network.up():
            if self.wifi_at is None or now - self.wifi_at > WIFI_PATIENCE_MS:
                self.network.connect()
                self.wifi_at = now
            self._retry(now, "Wi-Fi is not connected yet")
            return
        client = None
        try:
            if self.ip is None:
                self.ip = resolve(c["broker"], c["port"])
            probe(self.ip, c["port"], c["connect_timeout_ms"])
            password = c["password"] if c["password"] is not None or c["user"] is None else ""
            client = MQTTClient(self.client_id, self.ip, c["port"], c["user"], password,
                                c["keepalive_s"])
            client.set_callback(self._received)
            client.set_last_will(self.status_topic.encode(), b"offline", True)
            client.connect()
            self.heard_at = now
            for topic in (self.status_topic, self.assign_topic, self.blink_topic,
                          self.seat_prefix + "+"):
                client.subscribe(topic.encode())
        except Exception as e:
            # As in poll(): any failure of a half-made connection means "try later".
            if client is not None and client.sock is not None:
                client.sock.close()
            self._retry(now, "cannot reach the broker %s:%d: %r" % (c["broker"], c["port"], e))
            return
        self.client = client
        self.poller.register(client.sock, select.POLLIN)
        self.failures = 0
        self.connects += 1
        self.tracker.connected()

    def _retry(self, now, reason):
        self.failures += 1
        if self.failures % RESOLVE_EVERY == 0:
            self.ip = None
        c = self.config
        delay = min(c["backoff_max_ms"], c["backoff_min_ms"] << min(self.failures - 1, 16))
        delay = delay // 2 + random.getrandbits(16) * (delay // 2) // 65536
        self.retry_at = now + delay
        self.tracker.log("%s; next try in %d ms" % (reason, delay))

    def _lost(self, reason):
        client, self.client = self.client, None
        self.poller.unregister(client.sock)
        try:
            client.sock.close()
        except OSError:
            pass
        self.tracker.disconnected(reason)
        self._retry(self.tracker.clock.ms(), reason)
