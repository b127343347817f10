-- Rows a reader must survive: data that is not JSON, a part whose message
-- is gone, a part type and fields from a future release, an empty session.
INSERT INTO session VALUES ('ses_D1', 'global', NULL, 's', '/home/dev/proj', 'Damaged', '1.2.25', NULL, 1700000000000, 1700000009000, NULL, NULL);
INSERT INTO session VALUES ('ses_D2', 'global', NULL, 's', '/home/dev/proj', 'Empty', '1.2.25', NULL, 1700000001000, 1700000001000, NULL, NULL);
INSERT INTO message VALUES ('msg_D1u', 'ses_D1', 1700000000100, 1700000000100, '{"role":"user","time":{"created":1700000000100},"futureField":{"x":[1,2,3]}}');
INSERT INTO part VALUES ('prt_D1u1', 'msg_D1u', 'ses_D1', 1700000000100, 1700000000100, '{"type":"text","text":"question kept despite the damage","future":true}');
INSERT INTO part VALUES ('prt_D1u2', 'msg_D1u', 'ses_D1', 1700000000101, 1700000000101, 'not json {');
INSERT INTO message VALUES ('msg_D1x', 'ses_D1', 1700000000200, 1700000000200, '{"role":"assistant", "time": ');
INSERT INTO message VALUES ('msg_D1a', 'ses_D1', 1700000000300, 1700000000300, '{"role":"assistant","time":{"created":1700000000300}}');
INSERT INTO part VALUES ('prt_D1a1', 'msg_D1a', 'ses_D1', 1700000000300, 1700000000300, '{"type":"hologram","text":"FUTURE-PART-TEXT"}');
INSERT INTO part VALUES ('prt_D1a2', 'msg_D1a', 'ses_D1', 1700000000301, 1700000000301, '{"type":"text","text":"answer kept"}');
INSERT INTO part VALUES ('prt_D1z', 'msg_gone', 'ses_D1', 1700000000400, 1700000000400, '{"type":"text","text":"ORPHAN-PART"}');
INSERT INTO message VALUES ('msg_D9', 'ses_gone', 1700000000500, 1700000000500, '{"role":"user"}');
