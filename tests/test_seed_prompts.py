"""The prompts say what the seed says (issue 38 items 11 and 14): a one-off task the person did with
Sonetto is a moment, written with the full date and year, as the seed's own example moment is; the
"音乐" section is the seed's (虚拟歌手 … 创作者); the recall prompt's first few-shot example is the
seed's 塔罗牌 example; an expired to-do is chosen when the question asks about its time."""

from __future__ import annotations

import re

from sonetto_desktop.memory import YamlMemoryManager
from sonetto_desktop.memory.retrieval.llm_prompt import FIND_RELATED_MEMORY
from sonetto_desktop.memory.writer import prompts


def _rule(number: int) -> str:
    return re.search(rf"^{number}\. .*$", prompts._CORE_PRINCIPLES, re.MULTILINE).group(0)


def test_moments_take_one_off_tasks_with_the_full_date():
    rule = _rule(4)
    assert "一次性的提问或任务" not in rule  # the seed's own moment is one ("让Sonetto分析塔罗牌工具代码")
    assert "Miso让Sonetto分析塔罗牌工具代码" in rule
    assert "带年份的完整日期" in rule
    examples = re.findall(r"“(\d{4}年\d{1,2}月\d{1,2}日，[^”]+)”", rule)
    assert len(examples) == 2  # both examples carry the year
    assert "年" in re.search(r"例如“([^”]+)”", prompts.HYGIENE_SYSTEM).group(1)


def test_the_music_section_is_the_seeds(tmp_path):
    from sonetto_desktop.memory.writer.tools import make_memory_tools

    create = make_memory_tools(YamlMemoryManager(tmp_path / "memory.yaml"))[0].description
    assert '"音乐"（虚拟歌手、声库、歌曲、专辑、创作者）' in create


def test_the_first_recall_example_is_the_seeds_tarot_example():
    first = FIND_RELATED_MEMORY.split("## 示例 1")[1].split("## 示例 2")[0]
    for line in ("(项目) 塔罗牌工具是Sonetto项目的人文性质彩蛋，Miso正在重构。",
                 "(瞬间) 2026年7月11日，Miso让Sonetto分析塔罗牌工具代码", "(品味) Miso 喜欢夏天和猫。",
                 "(瞬间) 2026年7月12日凌晨，Miso抽塔罗牌问期末考运势", "用户：塔罗牌重构"):
        assert line in first
    assert first.strip().endswith("输出：[0, 1, 3]")


def test_an_expired_to_do_is_chosen_when_the_question_asks_about_its_time():
    rule = re.search(r"4\. 时间线索：.*", FIND_RELATED_MEMORY).group(0)
    assert "用户问的正是那段时间" in rule and "上周" in rule and "要选" in rule


def test_names_written_as_the_seed_writes_them_are_recognised():
    """Issue 38 item 12: "Miso 喜欢…" (name, space, verb: the seed's own style) names the user."""
    from sonetto_desktop.memory.writer.names import leading_name

    assert leading_name("Miso 喜欢夏天和猫。") == "Miso"
    assert leading_name("Miso喜欢夏天和猫") == "Miso"
    assert leading_name("Miso7月14日去看了海") == "Miso"  # the date's digits are not the name's
    assert leading_name("Kai2 在写代码") == "Kai2"
    assert leading_name("用户喜欢猫") is None and leading_name("AI 写的") is None


async def test_a_seed_store_written_with_spaces_names_the_user(llm_server, make_llm, tmp_path):
    from sonetto_desktop.memory.writer.consumer import MemoryConsumer

    mm = YamlMemoryManager(tmp_path / "memory.yaml")
    for text in ("Miso 喜欢夏天和猫。", "Miso 在重构塔罗牌工具。", "用户喜欢洛天依"):
        mm.add(text, "品味")
    llm_server.add_text("本轮无需记录")
    await MemoryConsumer(make_llm(), mm).consume("s", "t", [{"role": "user", "content": "今天去看海了"}])
    user = llm_server.requests[-1]["messages"][-1]["content"]
    assert "## 用户的称呼\nMiso（" in user
    assert "不要写成“Miso7月14日”" in user and "Miso 喜欢夏天和猫" in user  # a Latin name is not glued to a date
    mm.close()


def test_a_chinese_name_gets_no_spacing_rule():
    assert "加一个空格" not in prompts.subject_block("小林") and "加一个空格" in prompts.subject_block("Miso")
