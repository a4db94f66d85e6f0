"""The secret filter on the labelled lines of bench/datasets/secret-lines*.yaml (issue 35, item 5):
precision and recall stay at or above what docs/benchmarks.md states, per language too; and the
filter's parts, each on its own."""

from __future__ import annotations

import pytest

from bench import secret_filter as bench
from sonetto_desktop.memory.writer.secret_filter import (
    HIDDEN,
    find_secret,
    find_secrets,
    placeholder,
    redact_secrets,
)

#: (dataset, precision, recall) measured (docs/benchmarks.md, "Secret filter"); the test keeps them.
MEASURED = [("secret-lines.yaml", 1.0, 1.0), ("secret-lines-blind.yaml", 1.0, 1.0), ("secret-lines-spoken.yaml", 1.0, 1.0)]


@pytest.mark.parametrize("name,precision,recall", MEASURED)
def test_precision_and_recall_on_the_labelled_lines_stay_at_what_was_measured(name, precision, recall):
    secrets, ordinary = bench.load(bench.DATASETS / name)
    scores = bench.score(secrets, ordinary)
    everything = scores["all"]
    assert everything.precision >= precision, everything.alarms
    assert everything.recall >= recall, (everything.missed, everything.leaked)
    for language in ("zh", "en"):  # neither language carries the other
        assert scores[language].precision >= precision and scores[language].recall >= recall, language


def test_the_tuning_set_has_forty_lines_each_way_in_each_language():
    secrets, ordinary = bench.load(bench.DATASETS / "secret-lines.yaml")
    for language in ("zh", "en"):
        assert sum(bench.language(text) == language for text, _value in secrets) >= 40
        assert sum(bench.language(text) == language for text in ordinary) >= 40
    assert all(value in text for text, value in secrets)  # each value is what the line gives away


def test_the_score_sees_a_miss_a_value_left_and_a_false_alarm():
    scores = bench.score([("我的密码是 abc12345", "abc12345"), ("my PIN is in the drawer", "drawer")],
                         ["验证码一直没收到", "门禁密码：77310#"])
    s = scores["all"]
    assert (s.found, len(s.missed), s.false_alarms) == (1, 1, 1) and s.precision == 0.5 and s.recall == 0.5


def test_a_value_hidden_only_in_part_is_not_found():
    """A value whose first word alone is hidden ("correct" of "correct horse battery staple") is left to
    the model: here the labelled value runs on past what the filter hides."""
    s = bench.score([("my PIN is 4821 and my name", "4821 and my")], [])["all"]
    assert (s.found, len(s.leaked)) == (0, 1)
    assert bench.covered("家里 WiFi 的密码是 Lin1996!", "Lin1996!")  # the sentence's mark may stay


@pytest.mark.parametrize("text,value,kind", [
    ("我家门锁密码是七七三一零", "七七三一零", "密码"),  # Chinese numerals, as voice input writes digits
    ("银行卡密码 四八二一", "四八二一", "密码"),
    ("我的银行卡密码是幺三五七", "幺三五七", "密码"),
    ("door code is 1 2 3 4", "1 2 3 4", "密码"),  # digits read out one by one
    ("验证码是 5 8 3 9 2 0", "5 8 3 9 2 0", "验证码"),
    ("password: correct horse battery staple", "correct horse battery staple", "密码"),  # the rest of the clause
    ("the password for my router is admin", "admin", "密码"),  # a plain word, for a named device
])
def test_spoken_spaced_and_plain_word_values_are_hidden_whole(text, value, kind):
    hidden, count = redact_secrets(text)
    assert count == 1 and find_secret(text) == kind
    assert hidden == text.replace(value, placeholder(kind))


@pytest.mark.parametrize("text", [
    "密码是二〇二四年改的", "验证码五六七个都试过了", "密码三三两两地记在几个本子上", "门禁码一两个月换一次",
    "the door code is 4 digits", "Password: forgot it again", "Password: see the sticky note",
    "the password for my laptop is too long", "The password to my heart is chocolate",
    "room 3 2 1 is where the door code is kept",
])
def test_quantities_remarks_and_figures_of_speech_stay(text):
    assert find_secret(text) is None, redact_secrets(text)


def test_only_the_value_is_hidden_and_every_kind_reads_the_same_way():
    cases = {
        "My wifi password is hunter2-Secret!": ("My wifi password is ［已隐去的密码］!", "密码"),
        "the passcode for the door is 77310": ("the passcode for the door is ［已隐去的密码］", "密码"),
        "验证码 583920，五分钟内有效": ("验证码 ［已隐去的验证码］，五分钟内有效", "验证码"),
        "637281 是我的银行卡密码": ("［已隐去的密码］ 是我的银行卡密码", "密码"),
        "my passport number is E12345678": ("my passport number is ［已隐去的证件号］", "证件号"),
        "My bank account number is 6222 0212 3456 7890": ("My bank account number is ［已隐去的银行账号］", "银行账号"),
        "token: 8f14e45fceea167a5a36dedd4bea2543": ("token: ［已隐去的密钥］", "密钥"),
    }
    for text, (hidden, kind) in cases.items():
        assert redact_secrets(text) == (hidden, 1) and find_secret(text) == kind
        assert HIDDEN.fullmatch(placeholder(kind)) and find_secret(hidden) is None  # hiding twice changes nothing
        assert redact_secrets(hidden) == (hidden, 0)


def test_full_width_characters_are_read_as_what_they_are():
    text = "ｗｉｆｉ密码：ｈｕｎｔｅｒ２０２４"
    hidden, count = redact_secrets(text)
    assert count == 1 and hidden == "ｗｉｆｉ密码：" + placeholder("密码")


def test_several_secrets_in_one_text_are_each_hidden_in_place():
    text = "wifi 密码 abc12345，门禁码是 5521#，API key: sk-abcdefghijklmnop1234，我喜欢猫"
    found = find_secrets(text)
    assert [text[s.start:s.end] for s in found] == ["abc12345", "5521#", "sk-abcdefghijklmnop1234"]
    assert redact_secrets(text)[0] == ("wifi 密码 ［已隐去的密码］，门禁码是 ［已隐去的密码］，"
                                       "API key: ［已隐去的密钥］，我喜欢猫")


@pytest.mark.parametrize("text", [
    "password " * 20_000, "密码是" * 50_000, "code for the door " * 20_000, "is my password " * 20_000,
    "x/" * 100_000, "1 " * 300_000,
])
def test_long_repetitive_texts_are_read_in_one_pass(text):
    """No pattern backtracks over a whole text (an import may hand it megabytes); the time is in bench/."""
    assert redact_secrets(text)[1] == 0


@pytest.mark.parametrize("text,secret", [
    ("my password is sunshine.", True),  # a plain word right after "is", ending the clause
    ("the wifi password is \"letmein\"", True),  # quoted: a value as written
    ("The password to my heart is chocolate", False),  # a plain word after a detour: a figure of speech
    ("My password is long and complicated", False),
    ("the default password is admin123", False),  # an example, nobody's secret
    ("password = request.form['password']", False),  # code
    ("CVV码 123", True),
    ("token 值是 abc123def456", True),
])
def test_a_plain_word_or_an_example_is_a_value_only_where_nothing_else_is_meant(text, secret):
    assert (find_secret(text) is not None) is secret


@pytest.mark.parametrize("text,value", [
    ("2025年12月2日，hunter2 is my email password", "hunter2"),  # the writer's moments start with a full date
    ("2025年12月2日hunter2 is my email password", "hunter2"),
    ("（2024年3月1日）hunter2 is my email password", "hunter2"),
    ("小林说hunter2 is his wifi password", "hunter2"),
    ("【导入】Tr0ub4dor was my old password", "Tr0ub4dor"),
])
def test_a_value_before_its_label_is_hidden_after_chinese_text_too(text, value):
    """"V is my password" right after Chinese text (a date, a name, a bracket) with no space between:
    the value starts where the Chinese ends, as it does after a comma or at the start."""
    hidden, count = redact_secrets(text)
    assert count == 1 and value not in hidden and find_secret(text) == "密码"


@pytest.mark.parametrize("text", [
    "2025年12月2日，1Password is my password manager",
    "2025年12月2日，123456 is the most common password",
    "小林说Bitwarden is my password manager",
    "我觉得this is my password problem",
])
def test_after_chinese_text_a_label_that_goes_on_or_an_example_stays(text):
    assert find_secret(text) is None


@pytest.mark.parametrize("text,value", [
    ("hunter2这个是我的密码", "hunter2"),
    ("sunflower99那个是家里wifi密码", "sunflower99"),
    ("2025年12月2日，小林说hunter2这个是他的密码", "hunter2"),
])
def test_a_value_then_this_is_my_password_is_hidden(text, value):
    """"V 这个是我的密码": a pronoun between the value and its label, as people say it."""
    hidden, count = redact_secrets(text)
    assert count == 1 and value not in hidden


@pytest.mark.parametrize("text", ["iPhone这个是我的手机", "123456这个是最常见的密码", "1Password这个是我的密码管理器"])
def test_this_is_my_with_no_secret_label_or_an_example_stays(text):
    assert find_secret(text) is None


@pytest.mark.parametrize("text,value", [
    ("小林的门禁code是5521", "5521"),
    ("门禁 Code 是 0429#", "0429"),
    ("保险柜code改成了 739146", "739146"),
    ("银行卡PIN是4421", "4421"),
    ("公司VPN的pin是 8812", "8812"),
    ("手机pin：2580", "2580"),
])
def test_an_english_code_word_in_chinese_text_is_a_label(text, value):
    """Chinese with an English "code" / "PIN" after what it opens, or "pin" before 是 / ：: the value after
    it is hidden as after 门禁码 or 密码."""
    hidden, count = redact_secrets(text)
    assert count == 1 and value not in hidden


@pytest.mark.parametrize("text", ["门禁codes很难记", "手机code写得很乱", "门禁code忘了", "我的pin是什么来着", "pin是一种针"])
def test_an_english_code_word_with_no_value_stays(text):
    assert find_secret(text) is None


def test_a_value_after_a_full_width_colon_leaves_the_colon():
    """"小林：hunter2就是他的wifi密码": the value is hidden, the colon before it (read as ":") stays."""
    hidden, count = redact_secrets("小林：hunter2就是他的wifi密码")
    assert count == 1 and hidden.startswith("小林：") and "hunter2" not in hidden


@pytest.mark.parametrize(("text", "value"), [
    ("我把路由器的初始密码改成了Hunter2024", "Hunter2024"),  # changed to: the new one is someone's
    ("路由器默认设置我都改了，wifi密码是Hunter2024", "Hunter2024"),  # the example word is another clause's
    ("常见问题解决了，密码是Hunter2024", "Hunter2024"),
    ("I feel like my password is Hunter2024 now", "Hunter2024"),
    ("I changed the default password to Hunter2024", "Hunter2024"),
    ("我的OpenAI接口用的是sk-proj-abcdefghijklmnopqrstuvwxyz123456", "sk-proj-abcdefghijklmnopqrstuvwxyz123456"),
    ("配置里写AKIAIOSFODNN7EXAMPLE登录", "AKIAIOSFODNN7EXAMPLE"),  # a key right after and before Chinese text
    ("用ghp_abcdefghijklmnopqrstuvwxyz0123456789登录", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
    ("my pin 4421", "4421"),
    ("debit card pin 4421", "4421"),
])
def test_a_secret_next_to_an_example_word_or_chinese_text_is_hidden(text, value):
    from sonetto_desktop.memory.writer.turns import format_turn, normalize_turn

    assert value not in redact_secrets(text)[0]
    assert find_secret(text) is not None
    assert value not in format_turn(normalize_turn([{"role": "user", "content": text}]))  # what the writer reads


@pytest.mark.parametrize("text", ["路由器的默认密码是admin", "初始密码是123456，第一次登录要改", "the default password is admin123",
                                  "比如密码 abc123 就太简单了", "the pin 2 of the chip", "a pin 12 mm long"])
def test_an_example_password_and_a_pin_that_is_no_code_stay(text):
    assert redact_secrets(text) == (text, 0)
